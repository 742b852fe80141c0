"""What both oracles share: pip's resolver run on a find-links directory, and the independent
check of a solution against every constraint of a universe with `packaging`."""

import json
import subprocess
import sys

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

GAVE_UP = "gave up"  # pip's resolver stopped after its round limit (ResolutionTooDeep)
CRASHED = "crashed"  # pip 26.3 hits a RecursionError in resolvelib on some cyclic universes


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
