#!/usr/bin/env python3
"""Every OpenMMLab release of the stacks' era locks offline, or a rule explains why not.

For each release the embedded matrix knows of mmcv-full 1.x, mmdet 2.x, mmsegmentation 0.x and
mmdet3d 0.x-1.0, and of the 2.x era (mmcv 2.x, mmdet 3.x, mmsegmentation 1.x, mmdet3d 1.1-1.4)
(`bevenv --json matrix show NAME`), `bevenv lock --offline --require NAME==V` must either write
a lock that pins NAME at V (and, for mmdet, mmsegmentation 1.x and mmdet3d, an mmcv-full or mmcv
inside the bounds the release asserts at import, checked here with `packaging`), or fail with
exit 1 and an explanation that names a matrix rule. "no such version" is never an answer.
Offline, about a second per release.

usage: era_releases.py BEVENV
"""

import json
import os
import subprocess
import sys
import tempfile
import tomllib

from packaging.specifiers import SpecifierSet
from packaging.version import Version

ERAS = {
    "mmcv-full": SpecifierSet(">=1.0,<2"),
    "mmcv": SpecifierSet(">=2.0.0rc0,<3"),
    "mmdet": SpecifierSet(">=2.0,<4"),
    "mmsegmentation": SpecifierSet(">=0.0,<2"),
    "mmdet3d": SpecifierSet(">=0.0,<2"),
}
# The mmcv bounds each release checks at import (mmdetection's FAQ for mmdet 2.x; `__init__.py` at
# the release tags for mmdet3d, mmdet 3.x and mmsegmentation 1.x), written out here independently
# of the matrix's rules: (package, its releases, the mmcv distribution, the bound).
MMCV_BOUNDS = [
    ("mmdet", ">=2.14,<2.17", "mmcv-full", ">=1.3.8,<=1.4.0"),
    ("mmdet", ">=2.19,<2.24", "mmcv-full", ">=1.3.17,<1.5.0"),
    ("mmdet", ">=2.24,<=2.25.1", "mmcv-full", ">=1.3.17,<1.6.0"),
    ("mmdet", ">=2.25.2,<2.26", "mmcv-full", ">=1.3.17,<1.7.0"),
    ("mmdet3d", ">=0.15,<0.17.3", "mmcv-full", ">=1.3.8,<=1.4.0"),
    ("mmdet3d", ">=0.17.3,<=1.0.0rc0", "mmcv-full", ">=1.3.8,<=1.5.0"),
    ("mmdet3d", ">=1.0.0rc4,<=1.0.0rc6", "mmcv-full", ">=1.5.2,<=1.7.0"),
    ("mmdet", ">=3.0.0rc1,<3.0.0rc6", "mmcv", ">=2.0.0rc0,<2.1.0"),
    ("mmdet", ">=3.0.0rc6,<3.2", "mmcv", ">=2.0.0rc4,<2.1.0"),
    ("mmdet", ">=3.2,<3.4", "mmcv", ">=2.0.0rc4,<2.2.0"),
    ("mmsegmentation", "==1.0.0rc4", "mmcv", "==2.0.0rc3"),
    ("mmsegmentation", ">=1.0.0rc5,<1.2", "mmcv", ">=2.0.0rc4,<2.1.0"),
    ("mmsegmentation", ">=1.2,<1.3", "mmcv", ">=2.0.0rc4,<2.2.0"),
    ("mmdet3d", ">=1.1,<1.3", "mmcv", ">=2.0.0rc4,<2.1.0"),
    ("mmdet3d", ">=1.3,<1.5", "mmcv", ">=2.0.0rc4,<2.2.0"),
]


def versions(bevenv, name):
    done = subprocess.run([bevenv, "--json", "matrix", "show", name], capture_output=True,
                          text=True, check=True)
    out = set()
    for v in json.loads(done.stdout)["versions"]:
        public = Version(v["install_version"]).public
        if ERAS[name].contains(Version(public), prereleases=True):
            out.add(public)
    return sorted(out, key=Version)


def check(bevenv, name, version, work):
    lock_path = os.path.join(work, "era.lock")
    done = subprocess.run([bevenv, "lock", "--offline", "--python", "3.8", "--require",
                           f"{name}=={version}", "-o", lock_path], capture_output=True, text=True)
    text = done.stdout + done.stderr
    if done.returncode == 1 and "rule `" in text:
        return "explained", None
    if done.returncode != 0:
        return "failed", text.strip().splitlines()[:6]
    lock = {p["name"]: p["version"] for p in tomllib.load(open(lock_path, "rb"))["package"]}
    if Version(Version(lock.get(name, "0")).public) != Version(version):
        return "failed", [f"locked {name} {lock.get(name)}"]
    for package, when, dist, bound in MMCV_BOUNDS:
        if package == name and SpecifierSet(when).contains(Version(version), prereleases=True):
            mmcv = lock.get(dist)
            if mmcv is None or not SpecifierSet(bound).contains(Version(mmcv).public, True):
                return "failed", [f"{dist} {mmcv} is outside {bound}"]
    return "locked", None


def main():
    bevenv = sys.argv[1]
    work = tempfile.mkdtemp(prefix="bevenv-era.")
    failures, counts = [], {}
    for name in ERAS:
        for version in versions(bevenv, name):
            status, detail = check(bevenv, name, version, work)
            counts[(name, status)] = counts.get((name, status), 0) + 1
            if status == "failed":
                failures.append(f"{name}=={version}: " + " | ".join(detail))
    for name in ERAS:
        line = ", ".join(f"{counts.get((name, s), 0)} {s}" for s in ("locked", "explained"))
        print(f"era-releases: {name}: {line}")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
