#!/usr/bin/env python3
"""Is a profile's lock the whole environment? pip answers, not bevenv.

For each profile: `bevenv lock --profile P --offline`, then pip (the profile's Python, PyPI)
resolves every locked name with the lock's exact pins as constraints:

    pip install --dry-run --ignore-installed --report - -r names -c pins

pip must add no package the lock lacks and reject none of its pins. Artifacts whose hosts are
unreachable here (download.pytorch.org, OpenMMLab's pages, GitHub for VCS builds) are replaced
by stand-in wheels of the same name and version, whose Requires-Dist is read from PyPI's own
files of that release (`pypi_metadata.py`, no bevenv code), so their dependencies are pip's
business too. Network: needs https://pypi.org. Exit 0 when every profile holds, 1 otherwise,
77 when the interpreter or PyPI is missing.

usage: pip_closure.py BEVENV [--profiles a,b] [--python PATH] [--keep DIR]
"""

import json
import os
import subprocess
import sys
import tomllib
import zipfile

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import pypi_metadata  # noqa: E402
import real_pypi  # noqa: E402  (tests/support/real_pypi.py: opt-in, interpreter, skip, work dir)

PYPI_FILES = "https://files.pythonhosted.org/"
def lock_profile(bevenv, profile, out):
    done = subprocess.run([bevenv, "lock", "--profile", profile, "--offline", "-o", out],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bevenv lock --profile {profile} failed:\n{done.stdout}{done.stderr}")
    with open(out, "rb") as f:
        return tomllib.load(f)


def unreachable(package, builds):
    """True when the stand-in takes this package's place for pip."""
    name = package["name"]
    # Anything the lock builds from source: pip would run its setup.py to read metadata, which
    # for mmdet3d imports torch (unreachable here); its sdist's own metadata stands in for it.
    if any(b.get("package") == name for b in builds):
        return True
    arts = package.get("artifacts", [])
    if arts:
        return not all(a["url"].startswith(PYPI_FILES) for a in arts)
    return package.get("source", {}).get("kind") != "pypi" or "+" in package["version"]


def patched_requires(package, builds):
    """A local tree installed with `--no-deps` (mmdet3d 0.17.1+patched, built in its checkout):
    its release's PyPI metadata is not what gets installed, and the port pins its dependencies
    itself, so the stand-in asks for the names the lock gives it (versions come from the pins).
    A build from PyPI's own sdist (mmcv-full 1.7.2) keeps that release's metadata."""
    steps = [b for b in builds if b.get("package") == package["name"] and b.get("working_dir")]
    no_deps = any("--no-deps" in c for b in steps for c in b.get("commands", []))
    if package.get("variant") and no_deps:
        return list(package.get("dependencies", []))
    return None


# Builds from a VCS commit: PyPI's release of that version is another tree, so the stand-in
# takes the `install_requires` of the commit's own setup.py, read upstream.
VCS_REQUIRES = {
    # zhijian-liu/torchpack@c066a1c50af17ca8611b4150c209876232ffe27b:setup.py
    "c066a1c50af17ca8611b4150c209876232ffe27b": [
        "loguru", "multimethod", "numpy", "pyyaml", "torch>=1.5.0", "torchvision", "tqdm"],
}


def stand_in(directory, name, version, commit=None, requires=None):
    """A wheel `name==version` whose Requires-Dist is what PyPI's files of the public release
    declare (the builds behind unreachable hosts are of the same source release), or for a VCS
    build what its commit declares."""
    public = str(Version(version).public)
    if requires is not None:
        pass
    elif commit is not None:
        requires = VCS_REQUIRES[commit]
    else:
        requires = pypi_metadata.requires_of(name, public)
    if canonicalize_name(name) == "torch" and "+cu" in version:
        # download.pytorch.org's +cuXXX builds carry their CUDA libraries; PyPI's build of the
        # same release pulls them as nvidia-* wheels instead (pytorch.org/get-started).
        requires = [r for r in requires if not r.startswith("nvidia-")]
    dist = canonicalize_name(name).replace("-", "_")
    filename = f"{dist}-{version}-py3-none-any.whl"
    info = f"{dist}-{version}.dist-info"
    metadata = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {r}" for r in requires]
    with zipfile.ZipFile(os.path.join(directory, filename), "w") as wheel:
        wheel.writestr(f"{info}/METADATA", "\n".join(metadata) + "\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")
    return requires


def check_profile(bevenv, profile, python, work):
    lock = lock_profile(bevenv, profile, os.path.join(work, f"{profile}.lock"))
    packages, builds = lock.get("package", []), lock.get("build", [])
    standins = os.path.join(work, f"{profile}-standins")
    os.makedirs(standins, exist_ok=True)
    names, pins, stood_in = [], [], []
    for p in packages:
        version = p["version"]
        names.append(p["name"])
        pins.append(f"{p['name']}=={version}")
        if unreachable(p, builds):
            # A local label makes the stand-in outrank PyPI's file of the same public version
            # (`==1.4.0` admits `1.4.0+cu113.torch1.10.0`), as the real build would be chosen.
            if p.get("variant") and "+" not in version:
                version = f"{version}+{p['variant']}"
            vcs = [b["vcs"] for b in builds if b.get("package") == p["name"] and "vcs" in b]
            commit = vcs[0].rsplit("@", 1)[1] if vcs else None
            stand_in(standins, p["name"], version, commit, patched_requires(p, builds))
            stood_in.append(f"{p['name']} {version}")
    with open(os.path.join(work, f"{profile}-names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    with open(os.path.join(work, f"{profile}-pins.txt"), "w") as f:
        f.write("\n".join(pins) + "\n")
    command = [python, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
               "--report", "-", "--disable-pip-version-check", "--isolated",
               "--index-url", "https://pypi.org/simple", "--find-links", standins,
               "-r", os.path.join(work, f"{profile}-names.txt"),
               "-c", os.path.join(work, f"{profile}-pins.txt")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3000)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-25:])
        return False, f"{profile}: pip rejects the lock's pins:\n{tail}"
    report = json.loads(done.stdout)
    got = {canonicalize_name(i["metadata"]["name"]): i["metadata"]["version"]
           for i in report["install"]}
    locked = {canonicalize_name(p["name"]): p["version"] for p in packages}
    added = sorted(f"{n} {v}" for n, v in got.items() if n not in locked)
    missing = sorted(n for n in locked if n not in got)
    ok = not added and not missing
    lines = [f"{profile}: {len(locked)} locked; pip installs {len(got)}; adds {len(added)}; "
             f"rejects 0; stand-ins for {', '.join(stood_in) or 'none'}"]
    if added:
        lines.append(f"  added by pip: {', '.join(added)}")
    if missing:
        lines.append(f"  locked but not installed by pip: {', '.join(missing)}")
    return ok, "\n".join(lines)


def main():
    parser = real_pypi.argument_parser()
    parser.add_argument("--profiles", default="bevfusion,uniad,bevformer,uniad-2.0")
    parser.add_argument("--python", default=None)
    args = parser.parse_args()
    python = args.python or real_pypi.find_python()
    work = real_pypi.start("pip-closure", args.keep, real_pypi.skip_reason(python))
    if work is None:
        return real_pypi.SKIP
    failed = 0
    for profile in args.profiles.split(","):
        ok, text = check_profile(args.bevenv, profile, python, work)
        print(text, flush=True)
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
