#!/usr/bin/env python3
"""Fails when a function in src/app, solver or src/index is longer than 80 lines, signature to
closing brace: the longest functions are where the lock's logic hides, and the project keeps them
short enough to read at once. A function body is a `{` outside any other function whose text
before it ends in a parameter list (with qualifiers, a trailing return type or a constructor's
initializers). Comments and string literals are blanked first, so braces in them do not count.
Usage: check_function_length.py REPO_ROOT [LIMIT]"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
import verdict  # noqa: E402

FOLDERS = ("src/app", "solver", "src/index")
SUFFIXES = (".cpp", ".hpp", ".h", ".cc")
# `) const noexcept override -> T` before the brace: the end of a signature.
SIGNATURE_END = re.compile(
    r"\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(final)?\s*(->\s*[\w:<>,\s*&]+)?\s*$")
# `) : member_(x), other_{y}` before the brace: a constructor's initializers.
INITIALIZERS_END = re.compile(r"\)\s*:\s[\s\S]*[)}]\s*$")
TYPE_HEAD = re.compile(r"\b(namespace|class|struct|enum|union)\b[^()]*$")
RAW_STRING = re.compile(r'R"([^(\s]{0,16})\(')


def blank(text: str) -> str:
    """`text` with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i) + 2
        elif (raw := RAW_STRING.match(text, i)) is not None:
            end = text.find(")" + raw.group(1) + '"', i) + len(raw.group(1)) + 2
        elif text[i] in "\"'":
            end = i + 1
            while end < n and text[end] != text[i]:
                end += 2 if text[end] == "\\" else 1
            end += 1
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:end]))
        i = end
    return "".join(out)


def is_function_body(code: str, brace: int) -> bool:
    before = code[max(0, brace - 400):brace].rstrip()
    head = re.split(r"[;{}]", before)[-1]
    if TYPE_HEAD.search(head):
        return False
    return bool(SIGNATURE_END.search(before) or INITIALIZERS_END.search(head))


def signature_line(code: str, brace: int) -> int:
    """The first line of the declaration that owns the brace at `brace` (1-based)."""
    start = max(code.rfind(c, 0, brace) for c in ";{}") + 1
    while start < brace and code[start].isspace():
        start += 1
    return code.count("\n", 0, start) + 1


def long_functions(path: pathlib.Path, limit: int):
    code = blank(path.read_text(errors="replace"))
    open_braces = []  # (offset, whether it opens a function body)
    inside = 0  # how many of them are function bodies
    for i, c in enumerate(code):
        if c == "{":
            body = inside == 0 and is_function_body(code, i)
            open_braces.append((i, body))
            inside += body
        elif c == "}" and open_braces:
            start, body = open_braces.pop()
            if not body:
                continue
            inside -= 1
            first = signature_line(code, start)
            last = code.count("\n", 0, i) + 1
            if last - first + 1 > limit:
                yield first, last - first + 1


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 80
    problems = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                for line, length in long_functions(path, limit):
                    problems.append(f"{path.relative_to(root)}:{line}: a function of {length} "
                                    f"lines (at most {limit}); split it where its steps part")
    return verdict.report(problems,
                          f"{len(problems)} functions over {limit} lines in {', '.join(FOLDERS)}")


if __name__ == "__main__":
    sys.exit(main())
