#!/usr/bin/env python3
"""Runs the real `bevenv` binary for every case under tests/golden/cli/ and compares the
combined output of its steps with the case's expected.txt.

A case is a directory with case.json: {"steps": [["lock", "--profile", "smoke"], ...]} and
optionally "env": {...}. Steps `["@mkdir", DIR]`, `["@write", FILE, TEXT]`, `["@sed", FILE, OLD,
NEW]`, `["@cat", FILE]` and `["@hadolint", FILE]` make a directory, write a file (a project file
the case needs), replace text in a file (a hand edit), print a file the case wrote, and lint a
Dockerfile. Steps run in one fresh temporary directory, so later steps see the
files earlier ones wrote. Timings are masked. A differing case prints a diff; BEVENV_UPDATE_GOLDEN=1
rewrites expected.txt (tests/support/golden.py).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import golden  # noqa: E402

# Masked: wall time, and input hashes, which change with every edit of the matrix data.
MASKS = [
    (re.compile(r"in \d+(\.\d+)? ms"), "in <time> ms"),
    (re.compile(r"doctor — host \S+,"), "doctor — host <host>,"),
    (re.compile(r'"elapsed_ms": [0-9.e+-]+'), '"elapsed_ms": <time>'),
    (re.compile(r"input hash [0-9a-f]{12}"), "input hash <hash>"),
    (re.compile(r"sha256:[0-9a-f]{64}"), "sha256:<hash>"),
    (re.compile(r"sha256:[0-9a-f]{12}\.\.\."), "sha256:<digest>..."),
    # Image tags and versions carry the first 12 digits of the input hash.
    (re.compile(r"\b[0-9a-f]{12}\b"), "<hash12>"),
]


# Sentences of CLI11 (the argument parser) that bevenv rewrites in its own words: none may
# appear in any transcript.
CLI11_WORDING = ["Run with --help", "The following argument", "A subcommand is required",
                 "required TEXT missing", "Could not convert", "At least 1 required",
                 "Expected exactly", "is required"]


def run_case(bevenv: str, case: Path) -> str:
    spec = json.loads((case / "case.json").read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEVENV_")}
    env["NO_COLOR"] = "1"
    env.update(spec.get("env", {}))
    transcript = []
    with tempfile.TemporaryDirectory(prefix="bevenv-golden-") as work:
        for step in spec["steps"]:
            head = step[0] if step else ""  # an empty step is bare `bevenv`
            if head == "@mkdir":
                Path(work, step[1]).mkdir(parents=True, exist_ok=True)
                continue
            if head == "@write":
                Path(work, step[1]).write_text(step[2])
                transcript.append("$ write " + step[1])
                continue
            if head == "@sed":
                path = Path(work, step[1])
                text = path.read_text()
                if step[2] not in text:
                    raise SystemExit(f"{case.name}: `{step[2]}` is not in {step[1]}")
                path.write_text(text.replace(step[2], step[3], 1))
                transcript.append(f"$ edit {step[1]}: {step[2]} -> {step[3]}")
                continue
            if head == "@cat":
                transcript.append("$ cat " + step[1])
                transcript.append(Path(work, step[1]).read_text().rstrip("\n"))
                continue
            if head == "@hadolint":
                # An oracle no one here wrote: any finding at info level or above fails the case.
                done = subprocess.run(["hadolint", "--no-color", "--failure-threshold", "info",
                                       step[1]], cwd=work, capture_output=True, text=True)
                transcript.append("$ hadolint " + step[1])
                transcript.append(done.stdout.rstrip("\n") + f"[exit {done.returncode}]")
                continue
            done = subprocess.run([bevenv, *step], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=120)
            transcript.append("$ bevenv " + " ".join(step))
            transcript.append(done.stdout.rstrip("\n"))
            if done.stderr.strip():
                transcript.append("[stderr]\n" + done.stderr.rstrip("\n"))
            transcript.append(f"[exit {done.returncode}]")
    text = "\n".join(line for line in transcript if line != "") + "\n"
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def main() -> int:
    bevenv, cases_dir = str(Path(sys.argv[1]).resolve()), Path(sys.argv[2])
    only = sys.argv[3:] or None
    failures = 0
    cases = sorted(p for p in cases_dir.iterdir() if (p / "case.json").exists())
    for case in cases:
        if only and case.name not in only:
            continue
        actual = run_case(bevenv, case)
        parser_words = [w for w in CLI11_WORDING if w in actual]
        if parser_words:
            failures += 1
            print(f"FAIL {case.name}: the parser's own wording reached the user: {parser_words}")
            continue
        problem = golden.mismatch(case / "expected.txt", actual)
        if problem:
            failures += 1
            print(f"FAIL {case.name}\n{problem}")
        else:
            print(f"ok   {case.name}")
    print(f"{len(cases) - failures}/{len(cases)} golden cases match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
