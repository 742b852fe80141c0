#!/usr/bin/env python3
"""Compares bevenv's solver with pip's resolver on random package universes.

Usage: pip_agreement.py SOLVE_SCENARIO [--cases N] [--seed S] [--jobs J] [--keep DIR]

Each case is a small random universe of metadata-only wheels (names p0.., versions with
pre-, post- and dev-releases, Requires-Dist with PEP 440 specifiers) and one or two root
requirements. bevenv solves it through SOLVE_SCENARIO (built from solve_scenario.cpp); pip
through `pip install --dry-run --report - --no-index --find-links DIR`. Every solution either
side returns is checked against every constraint with `packaging`, independently of both.

Outcomes per case: both unsolvable; both solvable with the same set; both solvable with
different but valid sets (two resolvers may legitimately choose differently); pip giving up
(ResolutionTooDeep); bevenv solving with a pre-release that pip refuses (a known, documented
difference: README.md); or a disagreement on solvability, or an invalid solution, which are
failures (exit status 1).
"""

import os
import random
import subprocess
import sys
import tempfile

from packaging.utils import canonicalize_name
from packaging.version import Version

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import universes  # noqa: E402  (bench/universes.py: the wheel writer)
from pip_oracle import (CRASHED, GAVE_UP, case_arguments, print_counts, run_cases,  # noqa: E402
                        run_pip, violations)

VERSIONS = ["0.9", "1.0", "1.0.post1", "1.1", "1.2rc1", "1.2", "2.0.dev1", "2.0b1", "2.0",
            "2.1", "3.0"]
SPECS = ["", ">=1.0", ">=1.1", "<2", "<=1.1", "==1.*", "==2.0", "!=2.0", "~=1.0", ">1.0,<2.1",
         ">=2.0b1", "<1.1", ">=2", "~=2.0", "!=1.1,>=1.0"]
FAILURES = ("solvability differs", "invalid solution")


def random_universe(rng):
    names = [f"p{i}" for i in range(rng.randint(2, 6))]
    packages = []
    for index, name in enumerate(names):
        for version in rng.sample(VERSIONS, rng.randint(1, 6)):
            requires = []
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                target = rng.choice([n for n in names if n != name])
                requires.append((target, rng.choice(SPECS)))
            packages.append((name, version, requires))
    roots = [(rng.choice(names), rng.choice(SPECS)) for _ in range(rng.randint(1, 2))]
    return packages, roots


def scenario_text(packages, roots):
    lines = []
    for name, version, requires in packages:
        lines.append(f"package {name} {version}")
        lines.extend(f"  requires {target} {spec}" for target, spec in requires)
    lines.extend(f"want {name} {spec}" for name, spec in roots)
    return "\n".join(lines) + "\n"


def run_bevenv(binary, scenario_path):
    out = subprocess.run([binary, scenario_path], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    if lines and lines[0] == "UNSAT":
        return None
    return {canonicalize_name(n): Version(v) for n, v in (line.split() for line in lines)}


def run_case(binary, seed, keep):
    rng = random.Random(seed)
    packages, roots = random_universe(rng)
    with tempfile.TemporaryDirectory(prefix="bevenv-oracle-") as tmp:
        work = os.path.join(keep, f"case-{seed}") if keep else tmp
        wheels = os.path.join(work, "wheels")
        os.makedirs(wheels, exist_ok=True)
        for name, version, requires in packages:
            universes.write_wheel(wheels, name, version, requires)
        scenario = os.path.join(work, "universe.scenario")
        with open(scenario, "w", encoding="utf-8") as f:
            f.write(scenario_text(packages, roots))
        ours = run_bevenv(binary, scenario)
        theirs = run_pip(wheels, roots)
    detail = {"seed": seed, "roots": roots, "bevenv": str(ours), "pip": str(theirs),
              "scenario": scenario_text(packages, roots)}
    if theirs is CRASHED:
        return f"pip crashed, bevenv {'unsolvable' if ours is None else 'solved'}", detail
    if theirs is GAVE_UP:
        return f"pip gave up, bevenv {'unsolvable' if ours is None else 'solved'}", detail
    problems = []
    for who, solution in (("bevenv", ours), ("pip", theirs)):
        if solution is not None:
            problems.extend(f"{who}: {v}" for v in violations(solution, packages, roots))
    if ours is not None and theirs is None and any(v.is_prerelease for v in ours.values()):
        # bevenv admits a pre-release when any requirement in play names one; pip only counts
        # requirements of the packages picked so far (README.md).
        outcome = "bevenv used a pre-release pip refused"
    elif (ours is None) != (theirs is None):
        outcome = "solvability differs"
    elif ours is None:
        outcome = "both unsolvable"
    elif ours == theirs:
        outcome = "same solution"
    else:
        outcome = "different valid solutions"
    if problems:
        outcome = "invalid solution"
    detail["problems"] = problems
    return outcome, detail


def main():
    args = case_arguments(__doc__.splitlines()[0], "solve_scenario",
                          "keep each case's wheels and scenario under this folder")
    counts, failures = run_cases(lambda seed: run_case(args.solve_scenario, seed, args.keep), args,
                                 FAILURES)
    print_counts(counts, ("same solution", "different valid solutions", "both unsolvable",
                          "bevenv used a pre-release pip refused", *FAILURES), 38)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
