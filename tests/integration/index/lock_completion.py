#!/usr/bin/env python3
"""A curated record whose `deps` is not "complete" is completed from the package's own
metadata when a source has it cheaply (here a local wheel directory): the lock must depend on
every requirement the real wheel's METADATA declares for the target (read with `packaging`,
the oracle), while the matrix's own requirement stands. Marked "complete", the record is left
as the matrix wrote it.

Usage: lock_completion.py BEVENV WHEELS (the index tests' real wheels from PyPI)
"""

import email.parser
import os
import subprocess
import sys
import tempfile
import tomllib
import zipfile

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

TARGET = {"python_version": "3.11", "python_full_version": "3.11.0", "sys_platform": "linux",
          "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
          "implementation_name": "cpython", "platform_python_implementation": "CPython",
          "extra": ""}


def declared_dependencies(wheel):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(name).decode())
    names = set()
    for text in metadata.get_all("Requires-Dist") or []:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate(TARGET):
            names.add(canonicalize_name(requirement.name))
    return names


def lock(bevenv, wheels, overlay, work):
    out = os.path.join(work, "bevenv.lock")
    done = subprocess.run(
        [bevenv, "-q", "--matrix", overlay, "lock", "--require", "requests", "--no-index",
         "--find-links", wheels, "--python", "3.11", "-o", out],
        capture_output=True, text=True, env=dict(os.environ, XDG_CACHE_HOME=work + "/cache"))
    assert done.returncode == 0, f"bevenv lock failed ({done.returncode}): {done.stderr}"
    with open(out, "rb") as f:
        packages = {p["name"]: p for p in tomllib.load(f)["package"]}
    return packages


def main():
    bevenv, wheels = sys.argv[1], sys.argv[2]
    wheel = os.path.join(wheels, "requests-2.31.0-py3-none-any.whl")
    declared = declared_dependencies(wheel)
    assert "idna" in declared and len(declared) > 1, declared
    failures = []
    for complete in (False, True):
        with tempfile.TemporaryDirectory(prefix="bevenv-completion-") as work:
            overlay = os.path.join(work, "overlay")
            os.makedirs(overlay)
            with open(os.path.join(overlay, "requests.toml"), "w") as f:
                f.write('[[package]]\nname = "requests"\nversion = "2.31.0"\n'
                        'requires = ["idna>=2.5,<4"]\nsources = ["https://example.org/test-overlay"]\n'
                        + ('deps = "complete"\n' if complete else ""))
            packages = lock(bevenv, wheels, overlay, work)
            got = set(packages["requests"].get("dependencies", []))
            want = {"idna"} if complete else declared
            label = "complete record" if complete else "incomplete record"
            if got != want:
                failures.append(f"{label}: requests depends on {sorted(got)}, want {sorted(want)}")
            missing = sorted(want - set(packages))
            if missing:
                failures.append(f"{label}: not locked: {missing}")
            print(f"{label}: requests -> {sorted(got)}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
