#!/usr/bin/env python3
"""Runs `bevenv doctor --log FILE --json` on every real error text of tests/golden/logs/ and
checks that the catalogue (matrix/data/failures.toml) names it with the expected failure id and
a fix that fits.

The corpus is log excerpts as they appear in upstream issue threads, and texts produced here
by running the failing code for real. manifest.json lists each file with
  failure   the id doctor must name (the only one, unless `also` lists more)
  fix       a text the fix it shows must contain (the fix that fits the log's environment)
  source    where the text comes from: `owner/repo#N`, a URL, or `here: ...` for a real run
  python    optional: the Python the log's paths show, which doctor fits the fix to
Every catalogue failure with log patterns needs a case, and every file a manifest entry: removing
a signature, widening a pattern into another failure's text, or adding a failure without a real
text fails this test. No network is needed.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import verdict  # noqa: E402

MIN_CASES = 30
SOURCE = re.compile(r"^([A-Za-z0-9-]+/[A-Za-z0-9._-]+#[1-9][0-9]*|https://\S+|here: .+)$")


def catalogue_ids_with_patterns(failures_toml: Path) -> set:
    ids, current = set(), None
    for line in failures_toml.read_text().splitlines():
        if line.startswith("[[failure]]"):
            current = None
        elif line.startswith("id = "):
            current = line.split('"')[1]
        elif line.startswith("patterns = ") and current:
            ids.add(current)
    return ids


def main() -> int:
    bevenv, corpus, failures_toml = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    manifest = json.loads((corpus / "manifest.json").read_text())["cases"]
    problems = []
    listed = {case["file"] for case in manifest}
    on_disk = {p.name for p in corpus.iterdir() if p.name != "manifest.json"}
    for name in sorted(on_disk - listed):
        problems.append(f"{name}: not in manifest.json")
    if len(manifest) < MIN_CASES:
        problems.append(f"only {len(manifest)} cases; the corpus keeps at least {MIN_CASES}")
    for case in manifest:
        name = case["file"]
        if not SOURCE.match(case.get("source", "")):
            problems.append(f"{name}: source `{case.get('source')}` is not upstream or `here: ...`")
        path = corpus / name
        if not path.is_file():
            problems.append(f"{name}: listed but missing")
            continue
        done = subprocess.run([bevenv, "doctor", "--log", str(path), "--json"],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 1:
            problems.append(f"{name}: exit {done.returncode}, expected 1 (a known failure)\n"
                            f"{done.stdout}{done.stderr}")
            continue
        report = json.loads(done.stdout)
        found = {match["id"]: match for match in report["matches"]}
        expected = {case["failure"], *case.get("also", [])}
        if set(found) != expected:
            problems.append(f"{name}: named {sorted(found)}, expected {sorted(expected)}")
        match = found.get(case["failure"])
        if match is None:
            continue
        if case["fix"] not in match["fix"]:
            problems.append(f"{name}: the fix for {case['failure']} lacks `{case['fix']}`: "
                            f"{match['fix']}")
        if report.get("python") != case.get("python"):
            problems.append(f"{name}: fitted to Python {report.get('python')}, "
                            f"expected {case.get('python')}")
    covered = {case["failure"] for case in manifest}
    for failure in sorted(catalogue_ids_with_patterns(failures_toml) - covered):
        problems.append(f"failure `{failure}` has log patterns but no real text in {corpus}")
    return verdict.report(
        problems, f"{len(manifest)} texts, {len(covered)} failures, {len(problems)} problems")


if __name__ == "__main__":
    sys.exit(main())
