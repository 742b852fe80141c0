#!/usr/bin/env python3
"""`bevenv lock` from a find-links directory must see every version the specifiers allow: here
the only solution uses the 12th-newest release of `top`, and pip's resolver (the oracle, run on
the same wheels) must reach the same pins. Then a wheel is replaced by one with other
dependencies (new mtime): a plain re-lock keeps the lock's pins (they still hold), and the warm
re-lock with `--upgrade` must read the new file again and follow pip to the new answer.

Usage: lock_all_candidates.py BEVENV
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile

WHEEL = "Wheel-Version: 1.0\nGenerator: bevenv-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def write_wheel(directory, name, version, requires):
    dist = f"{name}-{version}"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    with zipfile.ZipFile(os.path.join(directory, f"{dist}-py3-none-any.whl"), "w") as archive:
        archive.writestr(f"{dist}.dist-info/METADATA", "\n".join(lines) + "\n")
        archive.writestr(f"{dist}.dist-info/WHEEL", WHEEL)
        archive.writestr(f"{dist}.dist-info/RECORD", "")


def bevenv_pins(bevenv, wheels, roots, work, cache, extra=()):
    out = os.path.join(work, "bevenv.lock")
    command = [bevenv, "-q", "lock", "--no-index", "--find-links", wheels, "-o", out, *extra]
    for r in roots:
        command += ["--require", r]
    done = subprocess.run(command, capture_output=True, text=True,
                          env=dict(os.environ, XDG_CACHE_HOME=cache))
    assert done.returncode == 0, f"bevenv lock failed ({done.returncode}): {done.stderr}"
    with open(out, "rb") as f:
        return {p["name"]: p["version"] for p in tomllib.load(f)["package"]}


def pip_pins(wheels, roots, work):
    report = os.path.join(work, "report.json")
    subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                    "--no-index", "--find-links", wheels, "--quiet", "--isolated",
                    "--disable-pip-version-check", "--report", report, *roots], check=True)
    with open(report, encoding="utf-8") as f:
        return {i["metadata"]["name"]: i["metadata"]["version"] for i in json.load(f)["install"]}


def main():
    bevenv = sys.argv[1]
    work = tempfile.mkdtemp(prefix="bevenv-all-candidates-")
    wheels, cache = os.path.join(work, "wheels"), os.path.join(work, "cache")
    os.makedirs(wheels)
    # top N needs base==N; the root caps base at 3, so only top 3 (12th newest of 15) fits.
    for n in range(1, 16):
        write_wheel(wheels, "top", f"{n}.0", [f"base=={n}.0"])
        write_wheel(wheels, "base", f"{n}.0", [])
    roots = ["top", "base<=3.0"]
    ours, theirs = bevenv_pins(bevenv, wheels, roots, work, cache), pip_pins(wheels, roots, work)
    assert ours == theirs, (ours, theirs)
    print(f"all-candidates: bevenv and pip agree: {ours}")

    # top 15.0 now needs nothing: a new file (new mtime) must be read again, not served from
    # the metadata cached for the old one.
    time.sleep(0.01)
    os.remove(os.path.join(wheels, "top-15.0-py3-none-any.whl"))
    write_wheel(wheels, "top", "15.0", [])
    kept = bevenv_pins(bevenv, wheels, roots, work, cache)
    assert kept == {"base": "3.0", "top": "3.0"}, f"a plain re-lock moved pins that hold: {kept}"
    print(f"all-candidates: a plain re-lock keeps the pins: {kept}")
    ours = bevenv_pins(bevenv, wheels, roots, work, cache, ["--upgrade"])
    theirs = pip_pins(wheels, roots, work)
    assert ours == theirs, (ours, theirs)
    assert ours["top"] == "15.0", ours
    print(f"all-candidates: after a wheel changed, bevenv and pip agree: {ours}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
