#!/usr/bin/env python3
"""Compares `bevenv lock` with pip's resolver on random package universes, through the CLI.

Usage: lock_agreement.py BEVENV [--cases N] [--seed S] [--jobs J] [--keep DIR]
                         [--via matrix|index]

Each case is a random universe written twice (bench/universes.py): as a matrix overlay for
`bevenv --matrix DIR lock --require ...`, and as a find-links directory of metadata-only wheels
for `pip install --dry-run --report - --no-index --find-links DIR`. `--via index` locks
from the wheels instead (`bevenv lock --no-index --find-links DIR`): the index stage, whose
metadata is read as solves choose releases. Versions are final releases
(post-releases included), so pre-release policy, where pip versions differ, is out of play.
Every requirement a record declares matches some version of its target (the matrix loader
insists on it); roots may match nothing.

Every lockfile bevenv writes is read with tomllib and checked, independently of bevenv, with
`packaging`: each root and each requirement of each locked version must hold, each locked
version must exist, no name may appear twice. pip's answers are checked the same way.

Outcomes: both solvable (same set, or different valid sets), both unsolvable, pip gave up
(ResolutionTooDeep) or crashed (a RecursionError inside pip's resolver on some dependency
cycles; bevenv's answer is still checked), and the failures: solvability differs, invalid solution, bevenv error.
Exit status 1 on any failure.
"""

import os
import random
import subprocess
import sys
import tempfile
import tomllib

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import universes  # noqa: E402  (bench/universes.py: the overlay and wheel writers)
from pip_oracle import (CRASHED, GAVE_UP, UNDECIDED, case_arguments, print_counts,  # noqa: E402
                        run_cases, run_pip, violations)

VERSIONS = ["0.9", "1.0", "1.0.post1", "1.1", "1.2", "1.5", "2.0", "2.1", "2.2", "3.0"]
SPECS = ["", ">=1.0", ">=1.1", "<2", "<=1.1", "==1.*", "==2.0", "!=2.0", "~=1.0", ">1.0,<2.1",
         "<1.1", ">=2", "~=2.0", "!=1.1,>=1.0", "==1.0.post1", ">1.0", "==3.0", "<1.0"]
FAILURES = ("solvability differs", "invalid solution", "bevenv error", "pip error")


def matches_any(spec, versions):
    specifier = SpecifierSet(spec)
    return any(specifier.contains(Version(v), prereleases=True) for v in versions)


def random_universe(rng):
    names = [f"p{i}" for i in range(rng.randint(2, 7))]
    available = {name: rng.sample(VERSIONS, rng.randint(1, 6)) for name in names}
    packages = []
    for name in names:
        for version in available[name]:
            requires = []
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                target = rng.choice([n for n in names if n != name])
                if any(t == target for t, _ in requires):
                    continue
                choices = [s for s in SPECS if matches_any(s, available[target])]
                requires.append((target, rng.choice(choices)))
            packages.append((name, version, requires))
    roots = {}
    for _ in range(rng.randint(1, 3)):
        roots.setdefault(rng.choice(names), rng.choice(SPECS))
    return packages, sorted(roots.items())


def read_lockfile(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    solution = {}
    duplicates = []
    for package in data.get("package", []):
        name = canonicalize_name(package["name"])
        if name in solution:
            duplicates.append(name)
        solution[name] = Version(package["version"])
    return solution, duplicates


def run_bevenv(binary, work, roots, via):
    if via == "index":  # the index stage: listings and lazily read metadata of the wheels
        command = [binary, "-q", "lock", "--no-index", "--find-links",
                   os.path.join(work, "wheels"), "-o", "case.lock"]
    else:
        command = [binary, "-q", "--matrix", os.path.join(work, "overlay"), "lock", "-o",
                   "case.lock"]
    for name, spec in roots:
        command += ["--require", f"{name}{spec}"]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=120)
    if done.returncode == 1:
        return None, []
    if done.returncode != 0:
        raise RuntimeError(f"bevenv exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return read_lockfile(os.path.join(work, "case.lock"))


def run_case(binary, seed, keep, via):
    rng = random.Random(seed)
    packages, roots = random_universe(rng)
    detail = {"seed": seed, "roots": roots,
              "packages": [f"{n} {v} {r}" for n, v, r in packages]}
    with tempfile.TemporaryDirectory(prefix="bevenv-lock-oracle-") as tmp:
        work = os.path.join(keep, f"case-{seed}") if keep else tmp
        os.makedirs(work, exist_ok=True)
        universes.write_overlay(os.path.join(work, "overlay"), packages)
        universes.write_find_links(os.path.join(work, "wheels"), packages)
        try:
            ours, duplicates = run_bevenv(binary, work, roots, via)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            detail["error"] = str(e)
            return "bevenv error", detail
        try:
            theirs = run_pip(os.path.join(work, "wheels"), roots)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            detail["error"] = str(e)
            return "pip error", detail
    detail.update(bevenv=str(ours), pip=str(theirs))
    problems = [f"bevenv: {name} locked twice" for name in duplicates]
    for who, solution in (("bevenv", ours), ("pip", theirs)):
        if isinstance(solution, dict):
            problems.extend(f"{who}: {v}" for v in violations(solution, packages, roots))
    detail["problems"] = problems
    if problems:
        return "invalid solution", detail
    if theirs in (GAVE_UP, CRASHED):
        return f"pip {theirs}, bevenv {'unsolvable' if ours is None else 'solved'}", detail
    if (ours is None) != (theirs is None):
        return "solvability differs", detail
    if ours is None:
        return "both unsolvable", detail
    return ("same solution" if ours == theirs else "different valid solutions"), detail


def main():
    def via_option(parser):
        parser.add_argument("--via", choices=("matrix", "index"), default="matrix",
                            help="lock from the overlay, or from the wheels with --find-links")

    args = case_arguments(__doc__.splitlines()[0], "bevenv",
                          "keep each case's overlay, wheels and lockfile here", via_option)
    binary = os.path.abspath(args.bevenv)
    counts, failures = run_cases(lambda seed: run_case(binary, seed, args.keep, args.via), args,
                                 FAILURES)
    decided = sum(n for o, n in counts.items() if not o.startswith(UNDECIDED))
    agreed = counts.get("same solution", 0) + counts.get("different valid solutions", 0) + \
        counts.get("both unsolvable", 0)
    print_counts(counts, ("same solution", "different valid solutions", "both unsolvable",
                          *FAILURES), 32)
    share = 100.0 * agreed / decided if decided else 0.0
    print(f"agreement on solvability: {agreed}/{decided} cases pip decided ({share:.1f}%), "
          f"every bevenv lockfile checked against every constraint")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
