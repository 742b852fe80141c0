#!/usr/bin/env python3
"""Every seed stack on every GPU class: a lock whose torch runs there, or a short way out.

For each seed profile x target (GPU architecture, the driver's CUDA version), `bevenv lock`
must either
  - write a lock whose torch build has SASS for the GPU (same major, minor <= the GPU's), or
    PTX for an older architecture, read from `bevenv matrix show torch` (the sass/ptx lists),
    whose CUDA the driver supports, and whose ops builds' TORCH_CUDA_ARCH_LIST holds an
    architecture that runs on the GPU; or
  - exit 1 with at most 4 lines on stdout; when the hint names a command, running it must give
    such a lock (checked the same way).
The table of outcomes is compared with tests/golden/target-table.txt (a diff when it differs;
BEVENV_UPDATE_GOLDEN=1 rewrites it, tests/support/golden.py). Offline; about a second per cell.

usage: target_table.py BEVENV GOLDEN
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib

from pathlib import Path

from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
import golden  # noqa: E402

PROFILES = ["bevfusion", "uniad", "bevformer", "uniad-2.0"]
TARGETS = [("sm_70", "10.2"), ("sm_70", "11.4"), ("sm_86", "12.2"), ("sm_89", "12.4"),
           ("sm_90", "13.0"), ("sm_100", "13.0"), ("sm_120", "12.8")]


def capability(arch):
    return int(arch.split("_")[1].rstrip("af"))


def runs_on(sass, ptx, gpu):
    g = capability(gpu)
    if any(capability(s) // 10 == g // 10 and capability(s) % 10 <= g % 10 for s in sass):
        return "sass"
    if any(capability(p) <= g for p in ptx):
        return "ptx"
    return None


def torch_builds(bevenv):
    done = subprocess.run([bevenv, "--json", "matrix", "show", "torch"], capture_output=True,
                          text=True, check=True)
    out = {}
    for v in json.loads(done.stdout)["versions"]:
        out[v["version"]] = v
    return out


def arch_runs(arch_list, gpu):
    g = capability(gpu)
    for item in re.split(r"[;\s]+", arch_list.strip()):
        if not item:
            continue
        ptx = item.endswith("+PTX")
        major, minor = item.replace("+PTX", "").split(".")
        a = int(major) * 10 + int(minor)
        if (a // 10 == g // 10 and a % 10 <= g % 10) or (ptx and a <= g):
            return True
    return False


def check_lock(path, gpu, driver, builds):
    with open(path, "rb") as f:
        lock = tomllib.load(f)
    torch = next(p for p in lock["package"] if p["name"] == "torch")
    record = builds.get(torch["version"])
    if record is None:  # the public version with a variant label
        record = builds[torch["version"] + ("+" + torch["variant"] if torch.get("variant") else "")]
    how = runs_on(record.get("sass", []), record.get("ptx", []), gpu)
    if record.get("sass") and how is None:
        return f"FAIL torch {torch['version']} has no kernels for {gpu}"
    cuda = record.get("cuda")
    if cuda and Version(cuda) > Version(driver):
        return f"FAIL torch {torch['version']} needs CUDA {cuda} > driver {driver}"
    for build in lock.get("build", []):
        arch = build.get("env", {}).get("TORCH_CUDA_ARCH_LIST", "")
        if arch and not arch_runs(arch, gpu):
            return f"FAIL ops build {build['name']} arch list `{arch}` misses {gpu}"
    kernels = how or "unrecorded"
    return f"lock torch {torch['version']} ({kernels}), {len(lock['package'])} packages"


def lock(bevenv, args, path):
    return subprocess.run([bevenv, "lock", "-o", path] + args, capture_output=True, text=True,
                          env=dict(os.environ, NO_COLOR="1"))


def cell(bevenv, profile, gpu, driver, builds, work):
    path = os.path.join(work, f"{profile}-{gpu}-{driver}.lock")
    done = lock(bevenv, ["--profile", profile, "--gpu", gpu, "--cuda-driver", driver], path)
    if done.returncode == 0:
        return check_lock(path, gpu, driver, builds)
    lines = [l for l in done.stdout.splitlines() if l.strip()]
    if done.returncode != 1:
        return f"FAIL exit {done.returncode}: {done.stderr.strip()[:200]}"
    if len(lines) > 4:
        return f"FAIL explanation of {len(lines)} lines"
    hint = re.search(r"hint: `(bevenv lock [^`]*)`", done.stdout)
    if hint:
        args = shlex.split(hint.group(1))[2:]
        followed = lock(bevenv, args, path)
        if followed.returncode != 0:
            return f"FAIL hint `{hint.group(1)}` exits {followed.returncode}"
        port = args[args.index("--profile") + 1]
        return "port " + port + ": " + check_lock(path, gpu, driver, builds)
    reason = next((l.strip() for l in lines[1:] if "no known port" in l), None)
    if reason:
        return "explained: " + reason[:90]
    if len(lines) >= 3 and lines[-1].startswith("hint:") and "╰─" not in lines[1]:
        return "explained: " + lines[1].strip()[:90]
    return "FAIL no reason and no port: " + " / ".join(lines)[:200]


def main():
    bevenv, golden_file = sys.argv[1], sys.argv[2]
    builds = torch_builds(bevenv)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for profile in PROFILES:
            for gpu, driver in TARGETS:
                rows.append(f"{profile:<10} {gpu:<7} {driver:<5} "
                            f"{cell(bevenv, profile, gpu, driver, builds, work)}")
    text = "\n".join(rows) + "\n"
    print(text, end="")
    failed = [r for r in rows if "FAIL" in r]
    problem = golden.mismatch(golden_file, text)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if failed:
        print(f"{len(failed)} cell(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
