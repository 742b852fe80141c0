#!/usr/bin/env python3
"""mmcv-full source builds are hash-checked: the torch 2 ports (and UniAD 2.0) compile mmcv-full
from its PyPI sdist, and the lock must carry that file, not a command that fetches it.

For each profile, offline: the lock's `mmcv-full` package lists exactly its sdist; its
`[[build]]` has that file as `source` (sha256 and size as PyPI publishes them, written out here
from PyPI's simple API and a `pip download` on 2026-12-02, independently of the matrix), the
step's variables (MMCV_WITH_OPS, FORCE_CUDA where the record sets it, TORCH_CUDA_ARCH_LIST) and
`after` with torch, and no commands; the requirements export pins mmcv-full nowhere (pip would
build it without MMCV_WITH_OPS) and lists nothing as unhashed.

usage: port_sdist_builds.py BEVENV
"""

import os
import subprocess
import sys
import tempfile
import tomllib

TARGET = ["--gpu", "sm_90", "--cuda-driver", "13.0"]
SDIST_1_7_2 = ("mmcv-full-1.7.2.tar.gz",
               "aa276a2c68fa84db9bbcdcf6ae941e30f0cb4a7f175bd283516669e00bab3759", 607853)
SDIST_1_6_0 = ("mmcv-full-1.6.0.tar.gz",
               "2ac60fb2ff75ef93c53b68f10a095a4929d67aedbd95c02641e1e5258d12b874", 554896)
# profile, target, the sdist, the variables the build must set
CASES = [
    ("bevfusion-torch2", TARGET, SDIST_1_7_2, {"MMCV_WITH_OPS": "1", "FORCE_CUDA": "1"}),
    ("bevformer-torch2", TARGET, SDIST_1_7_2, {"MMCV_WITH_OPS": "1", "FORCE_CUDA": "1"}),
    ("uniad-torch2", TARGET, SDIST_1_7_2, {"MMCV_WITH_OPS": "1", "FORCE_CUDA": "1"}),
    ("uniad-2.0", ["--gpu", "sm_86", "--cuda-driver", "12.2"], SDIST_1_6_0,
     {"MMCV_WITH_OPS": "1"}),
]


def run(cmd, cwd):
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, f"{cmd} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return done


def check(bevenv, profile, target, sdist, variables, work, failures):
    where = os.path.join(work, profile)
    os.makedirs(where)
    run([bevenv, "-q", "lock", "--profile", profile, *target, "-o", "bevenv.lock"], where)
    with open(os.path.join(where, "bevenv.lock"), "rb") as f:
        lock = tomllib.load(f)
    filename, sha256, size = sdist
    want = {"filename": filename, "sha256": sha256, "size": size}
    package = next(p for p in lock["package"] if p["name"] == "mmcv-full")
    got = [{k: a.get(k) for k in want} for a in package.get("artifacts", [])]
    if got != [want]:
        failures.append(f"{profile}: mmcv-full artifacts {got}, want [{want}]")
    builds = [b for b in lock.get("build", []) if b.get("package") == "mmcv-full"]
    if len(builds) != 1:
        failures.append(f"{profile}: {len(builds)} builds install mmcv-full")
        return
    build = builds[0]
    source = {k: build.get("source", {}).get(k) for k in want}
    if source != want or not build["source"]["url"].startswith("https://files.pythonhosted.org/"):
        failures.append(f"{profile}: build source {build.get('source')}, want {want} from PyPI")
    if build.get("commands"):
        failures.append(f"{profile}: the build runs commands {build['commands']}")
    env = build.get("env", {})
    for name, value in variables.items():
        if env.get(name) != value:
            failures.append(f"{profile}: build env {env} lacks {name}={value}")
    if not env.get("TORCH_CUDA_ARCH_LIST") or "torch" not in build.get("after", []):
        failures.append(f"{profile}: build env {env}, after {build.get('after')}")
    run([bevenv, "-q", "export", "--format", "requirements", "-o", "requirements.txt"], where)
    with open(os.path.join(where, "requirements.txt")) as f:
        text = f.read()
    if any(line.startswith("mmcv-full") for line in text.splitlines()):
        failures.append(f"{profile}: requirements.txt pins mmcv-full")
    if f"installs `mmcv-full` from {filename} (sha256 {sha256})" not in text:
        failures.append(f"{profile}: requirements.txt does not name the build's sdist")
    unhashed = os.path.join(where, "requirements.unhashed.txt")
    pins = open(unhashed).read().splitlines() if os.path.exists(unhashed) else []
    if any("mmcv-full" in line and not line.lstrip().startswith("#") for line in pins):
        failures.append(f"{profile}: mmcv-full is pinned in requirements.unhashed.txt")


def main():
    bevenv = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory(prefix="bevenv-port-sdist-") as work:
        for profile, target, sdist, variables in CASES:
            check(bevenv, profile, target, sdist, variables, work, failures)
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(CASES)} locks: mmcv-full built from its PyPI sdist, hash-checked"
          if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
