#!/usr/bin/env python3
"""The `mmdet3d-1.4` profile locks with torch 2.1, and torch 2.2 is explained by mmdet3d's check.

1. `bevenv lock --offline --profile mmdet3d-1.4 --gpu sm_86 --cuda-driver 12.2` writes a lock
   with mmdet3d 1.4.0, an mmcv 2.x below 2.2.0 (what mmdet3d 1.4 asserts at import), torch 2.1,
   an mmdet in [3.0.0rc5, 3.4.0) and an mmengine in [0.8.0, 1.0.0). The bounds are written out
   here from mmdet3d's `__init__.py` at v1.4.0, independently of the matrix's rules.
2. The same with `--require torch==2.2.*` fails with exit 1 and an explanation that names the rule
   `mmdet3d-mmcv-1.3-1.4`: mmcv 2.2.0 is the only mmcv built for torch 2.2, and mmdet3d 1.4
   refuses it.

torch 2.2 and mmcv 2.2.0's torch 2.2 builds live in other data files than this test's subject
(matrix/data/torch.toml, and a variant that needs them); where the embedded matrix lacks them,
the test adds them as an overlay (`--matrix DIR`) and says so. Offline, a few seconds.

usage: mmdet3d_14.py BEVENV
"""

import json
import os
import subprocess
import sys
import tempfile
import tomllib

from packaging.specifiers import SpecifierSet
from packaging.version import Version

PROFILE = ["--profile", "mmdet3d-1.4", "--gpu", "sm_86", "--cuda-driver", "12.2"]
RULE = "mmdet3d-mmcv-1.3-1.4"
# mmdet3d v1.4.0 mmdet3d/__init__.py, and what the profile promises about torch.
EXPECTED = {
    "mmdet3d": SpecifierSet("==1.4.0"),
    "mmcv": SpecifierSet(">=2.0.0rc4,<2.2.0"),
    "mmdet": SpecifierSet(">=3.0.0rc5,<3.4.0"),
    "mmengine": SpecifierSet(">=0.8.0,<1.0.0"),
    "torch": SpecifierSet(">=2.1,<2.2"),
}

TORCH_22 = """
[[package]]
name = "torch"
version = "2.2.2"
python = ">=3.8,<3.12"
requires = ["filelock", "typing-extensions", "sympy", "networkx", "jinja2", "fsspec"]
sources = ["https://pypi.org/pypi/torch/2.2.2/json"]
variants = [
  { local = "cu121", cuda = "12.1", sass = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"], index = "https://download.pytorch.org/whl/cu121" },
]
"""

MMCV_220_TORCH_22 = """
[[package]]
name = "mmcv"
version = "2.2.0"
requires = ["addict", "mmengine>=0.3.0", "numpy", "packaging", "pillow", "pyyaml", "yapf", "opencv-python>=3"]
sources = ["open-mmlab/mmcv@3ba02dfd35c326306346bd9d35a887efc2b30fb0:docs/en/_static/version.json"]
variants = [
  { local = "cu121.torch2.2", published = false, cuda = "12.1", find_links = "https://download.openmmlab.com/mmcv/dist/cu121/torch2.2/index.html", requires = ["torch>=2.2.0,<2.3", "addict", "mmengine>=0.3.0", "numpy", "packaging", "pillow", "pyyaml", "yapf", "opencv-python>=3"] },
]
"""


def shown_versions(bevenv, name):
    done = subprocess.run([bevenv, "--json", "matrix", "show", name], capture_output=True,
                          text=True, check=True)
    return [v["version"] for v in json.loads(done.stdout)["versions"]]


def overlay(bevenv, work):
    """The fixtures the embedded matrix still lacks, as `--matrix DIR` arguments."""
    parts, named = [], []
    if not any(Version(v).public.startswith("2.2.") for v in shown_versions(bevenv, "torch")):
        parts.append(TORCH_22)
        named.append("torch 2.2.2+cu121")
    if not any(v.endswith("torch2.2") for v in shown_versions(bevenv, "mmcv")):
        parts.append(MMCV_220_TORCH_22)
        named.append("mmcv 2.2.0+cu121.torch2.2")
    if not parts:
        return []
    directory = os.path.join(work, "overlay")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "fixtures.toml"), "w") as out:
        out.write("\n".join(parts))
    print("mmdet3d-1.4: overlay adds " + ", ".join(named))
    return ["--matrix", directory]


def lock(bevenv, args, path):
    done = subprocess.run([bevenv, "lock", "--offline", *PROFILE, *args, "-o", path],
                          capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def check_locks(bevenv, work):
    path = os.path.join(work, "mmdet3d-1.4.lock")
    code, text = lock(bevenv, [], path)
    if code != 0:
        return [f"the profile does not lock (exit {code}):"] + text.strip().splitlines()[:12]
    pins = {p["name"]: p["version"] for p in tomllib.load(open(path, "rb"))["package"]}
    failures = []
    for name, bound in EXPECTED.items():
        pinned = pins.get(name)
        if pinned is None or not bound.contains(Version(pinned).public, prereleases=True):
            failures.append(f"{name} {pinned} is outside {bound}")
    if "mmcv-full" in pins:
        failures.append(f"mmcv-full {pins['mmcv-full']} is locked beside mmcv")
    print("mmdet3d-1.4: locked " + ", ".join(f"{n} {pins.get(n)}" for n in EXPECTED))
    return failures


def check_torch_22(bevenv, work):
    path = os.path.join(work, "torch22.lock")
    code, text = lock(bevenv, ["--require", "torch==2.2.*", *overlay(bevenv, work)], path)
    if code != 1:
        return [f"torch 2.2 gave exit {code}, not 1 (unsatisfiable):"] + text.splitlines()[:12]
    if f"rule `{RULE}`" not in text:
        return [f"the explanation does not name rule `{RULE}`:"] + text.splitlines()[:20]
    print(f"mmdet3d-1.4: torch 2.2 explained by rule `{RULE}`")
    return []


def main():
    bevenv = sys.argv[1]
    work = tempfile.mkdtemp(prefix="bevenv-mmdet3d14.")
    failures = check_locks(bevenv, work) + check_torch_22(bevenv, work)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
