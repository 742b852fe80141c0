"""How the Python checks of the test tree end: each problem on a line of its own after `FAIL`,
then a one-line summary, and the exit status ctest reads (1 when anything failed)."""


def report(problems, summary: str) -> int:
    for problem in problems:
        print("FAIL", problem)
    print(summary)
    return 1 if problems else 0
