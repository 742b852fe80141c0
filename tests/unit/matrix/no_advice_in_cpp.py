#!/usr/bin/env python3
"""Fails when a symptom, cause or fix sentence lives in the C++ sources instead of the matrix.

Two checks over the string literals of src/ and probes/ (tests/ holds the fixtures and is not
scanned):
  1. no run of 7 consecutive words of a catalogue text (matrix/data/failures.toml: cause, fix,
     check wording) or of a rule's `fix`/`symptom` appears in them, adjacent literals joined;
  2. no literal spells a package pin after `pip install`/`pip uninstall` (`pip install
     yapf==0.40.1`): such advice belongs to a failure's `fixes`.
Usage: no_advice_in_cpp.py REPO_ROOT
"""
import pathlib
import re
import sys
import tomllib

WINDOW = 7  # words: long enough to be a sentence of advice, short enough to catch a split one

LITERAL = re.compile(r'R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"', re.S)
# Literals separated only by whitespace or comments are one string to the compiler.
BETWEEN = re.compile(r'^(\s|//[^\n]*\n|/\*.*?\*/)*$', re.S)
# `pip install yapf==0.40.1`, `pip install 'setuptools<59.6'`, `pip uninstall -y mmcv`.
PIN = re.compile(r"pip install\s+(?:--?[\w-]+\s+)*['\"]?[A-Za-z][\w.-]*(?:\[[\w,-]*\])?\s*"
                 r"(?:==|<=|>=|<|>|~=|!=)|pip uninstall\s+(?:-y\s+)?[A-Za-z]")


def cpp_strings(text):
    """The string literals of one C++ file, adjacent ones joined."""
    out, last_end = [], None
    for match in LITERAL.finditer(text):
        body = match.group(2) if match.group(2) is not None else match.group(3)
        if last_end is not None and out and BETWEEN.match(text[last_end:match.start()]):
            out[-1] += body
        else:
            out.append(body)
        last_end = match.end()
    return out


def words(text):
    return re.findall(r"[\w'<>=.`-]+", text.lower())


def windows(text):
    w = words(text)
    return {" ".join(w[i:i + WINDOW]) for i in range(len(w) - WINDOW + 1)}


def catalogue_texts(root):
    texts = []
    failures = tomllib.loads((root / "matrix/data/failures.toml").read_text())
    for failure in failures.get("failure", []):
        texts.append(failure["cause"])
        texts.extend(fix["text"] for fix in failure.get("fixes", []))
        check = failure.get("check")
        if check:
            texts.extend([check["ok"], check["problem"]])
    rules = tomllib.loads((root / "matrix/data/rules.toml").read_text())
    for rule in rules.get("rule", []):
        texts.extend(rule[key] for key in ("fix", "symptom") if key in rule)
    return texts


def main():
    root = pathlib.Path(sys.argv[1])
    wanted = {}
    for text in catalogue_texts(root):
        for window in windows(text):
            wanted.setdefault(window, text)
    problems = []
    for folder in ("src", "probes"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc"):
                continue
            for literal in cpp_strings(path.read_text(errors="replace")):
                where = path.relative_to(root)
                for match in PIN.finditer(literal):
                    problems.append(f"{where}: a pinned install in C++: {match.group(0)!r}")
                for window in windows(literal) & wanted.keys():
                    problems.append(f"{where}: {window!r} is catalogue text "
                                    f"({wanted[window][:60]!r}...)")
                    break
    for line in problems:
        print(line)
    print(f"{len(problems)} advice sentence(s) in C++ sources")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
