"""What both oracles share: pip's resolver run on a find-links directory, the independent
check of a solution against every constraint of a universe with `packaging`, and the run of many
seeded cases with its tally."""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

GAVE_UP = "gave up"  # pip's resolver stopped after its round limit (ResolutionTooDeep)
CRASHED = "crashed"  # pip 26.3 hits a RecursionError in resolvelib on some cyclic universes
# Outcomes where pip decided nothing; the oracles name them "pip gave up ..." or "pip crashed ...".
UNDECIDED = ("pip gave up", "pip crashed")


def run_pip(wheel_dir, roots):
    """pip's answer for `roots` ((name, specifier) pairs): name -> Version, None when pip proves
    it unsolvable, GAVE_UP or CRASHED; anything else pip does is an error."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
               "--no-index", "--find-links", wheel_dir, "--report", "-", "--quiet",
               "--disable-pip-version-check", "--no-cache-dir", "--isolated"]
    command.extend(f"{name}{spec}" for name, spec in roots)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        if "ResolutionImpossible" in done.stderr or "No matching distribution" in done.stderr:
            return None
        if "ResolutionTooDeep" in done.stderr or "resolution-too-deep" in done.stderr:
            return GAVE_UP
        if "RecursionError: maximum recursion depth exceeded" in done.stderr:
            return CRASHED
        raise RuntimeError(f"pip failed unexpectedly:\n{done.stderr}")
    report = json.loads(done.stdout)
    return {canonicalize_name(item["metadata"]["name"]): Version(item["metadata"]["version"])
            for item in report["install"]}


def violations(solution, packages, roots):
    """Every unmet constraint of `solution` (name -> Version), checked with packaging."""
    found = []
    requires_of = {(canonicalize_name(n), Version(v)): r for n, v, r in packages}
    for name, version in solution.items():
        if (name, version) not in requires_of:
            found.append(f"{name} {version} is not in the universe")
    for name, spec in roots:
        got = solution.get(canonicalize_name(name))
        if got is None or not SpecifierSet(spec).contains(got, prereleases=True):
            found.append(f"root {name}{spec} (got {got})")
    for (name, version), requires in requires_of.items():
        if solution.get(name) != version:
            continue
        for target, spec in requires:
            got = solution.get(canonicalize_name(target))
            if got is None or not SpecifierSet(spec).contains(got, prereleases=True):
                found.append(f"{name} {version} requires {target}{spec} (got {got})")
    return found


def case_arguments(description, program, keep_help, add_options=None):
    """The oracles' command line: the program under test, how many cases from which seed on how
    many threads, and where each case's files are kept; `add_options(parser)` adds an oracle's
    own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(program)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", help=keep_help)
    if add_options is not None:
        add_options(parser)
    return parser.parse_args()


def run_cases(run_case, args, failing):
    """Runs `run_case(seed)` -> (outcome, detail) for args.cases seeds from args.seed on args.jobs
    threads. Returns how many cases had each outcome, and the details of those whose outcome is
    in `failing`; the first five of them (by seed) are printed whole."""
    counts = {}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_case, args.seed + i) for i in range(args.cases)]
        for future in concurrent.futures.as_completed(futures):
            outcome, detail = future.result()
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome in failing:
                failures.append(detail)
    for detail in sorted(failures, key=lambda d: d["seed"])[:5]:
        print(json.dumps(detail, indent=1))
    return counts, failures


def print_counts(counts, listed, width):
    """One line an outcome: each of `listed` (zero included), then each undecided one seen."""
    for outcome in listed:
        print(f"{outcome:{width}} {counts.get(outcome, 0)}")
    for outcome in sorted(o for o in counts if o.startswith(UNDECIDED)):
        print(f"{outcome:{width}} {counts[outcome]}")
