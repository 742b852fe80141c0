#!/usr/bin/env python3
"""`bevenv matrix snapshot` against a loopback mirror (pypiserver) of real wheels from PyPI and
one sdist-only project made here: the generated file must agree with the served files as
`packaging` reads them (versions, Requires-Python, Requires-Dist, sha256 and size), two runs
must write the same bytes, and an offline lock with the snapshot as overlay must pin every
dependency whose marker holds for the target, each with a hashed artifact.

The mirror also serves mmcv-full sdists (made here): the curated `mmcv-full 1.7.2+source`
compiles its release's sdist, so the snapshot records that one file under the curated version
and no release `mmcv-full 1.7.2` (PyPI's sdist built without MMCV_WITH_OPS), nor 1.7.1; a lock
of `bevfusion-torch2` with that snapshot then builds mmcv-full from the mirror's file, hash-checked.

Usage: snapshot_mirror.py BEVENV WHEELS (the index tests' real wheels)
"""

import email.parser
import hashlib
import io
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.request
import zipfile

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

PYTHON = "3.11"
TARGET = {"python_version": PYTHON, "python_full_version": PYTHON + ".0", "sys_platform": "linux",
          "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
          "implementation_name": "cpython", "platform_python_implementation": "CPython",
          "platform_release": "", "platform_version": "", "implementation_version": PYTHON + ".0",
          "extra": ""}
ROOTS = ["requests==2.31.0", "yapf>=0.40.2", "python-dateutil", "sdistonly"]


def make_sdist(directory, name="sdistonly", version="1.0", requires=None):
    """A project published only as an sdist, with metadata 2.2 so its Requires-Dist counts."""
    requires = ["six>=1.10", 'tomli; python_version < "3.8"'] if requires is None else requires
    pkg_info = (f"Metadata-Version: 2.2\nName: {name}\nVersion: {version}\n"
                "Requires-Python: >=3.8\n" +
                "".join(f"Requires-Dist: {r}\n" for r in requires)).encode()
    path = os.path.join(directory, f"{name}-{version}.tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        info = tarfile.TarInfo(f"{name}-{version}/PKG-INFO")
        info.size, info.mtime = len(pkg_info), 0
        archive.addfile(info, io.BytesIO(pkg_info))


def metadata_of(path):
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            text = archive.read(name).decode()
    else:
        with tarfile.open(path) as archive:
            member = next(m for m in archive.getmembers() if m.name.count("/") == 1
                          and m.name.endswith("/PKG-INFO"))
            text = archive.extractfile(member).read().decode()
    return email.parser.Parser().parsestr(text)


def served(mirror):
    """(name, version) -> {filename: path} for every file the mirror serves."""
    out = {}
    for filename in sorted(os.listdir(mirror)):
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
        elif filename.endswith(".tar.gz"):
            name, version = parse_sdist_filename(filename)
        else:
            continue
        out.setdefault((canonicalize_name(name), version), {})[filename] = os.path.join(mirror,
                                                                                     filename)
    return out


def applies(requirement):
    return requirement.marker is None or requirement.marker.evaluate(TARGET)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def start_server(mirror, work):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p",
                               str(port), "--disable-fallback", "-a", ".", "-P", ".", mirror],
                              stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/simple/"
    for _ in range(200):
        try:
            urllib.request.urlopen(url, timeout=1)
            return server, url
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("pypiserver did not start")


def run(cmd, cache):
    env = dict(os.environ, XDG_CACHE_HOME=cache, PIP_CONFIG_FILE="/dev/null")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"{cmd} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return done


def check_source_build(records, files, failures):
    """mmcv-full: the sdist of the curated source build, under its version, and nothing else."""
    mmcv = [r for r in records if r["name"] == "mmcv-full"]
    versions = sorted(r["version"] for r in mmcv)
    if versions != ["1.7.2+source"]:
        failures.append(f"mmcv-full: records {versions}, want only 1.7.2+source")
        return
    r = mmcv[0]
    path = files[("mmcv-full", Version("1.7.2"))]["mmcv-full-1.7.2.tar.gz"]
    want = [{"filename": "mmcv-full-1.7.2.tar.gz", "sha256": sha256(path),
             "size": os.path.getsize(path)}]
    got = [{k: a.get(k) for k in ("filename", "sha256", "size")} for a in r["artifacts"]]
    if got != want or r.get("build") != "source":
        failures.append(f"mmcv-full 1.7.2+source: {r}, want build source and {want}")
    extra = set(r) - {"name", "version", "build", "generated", "artifacts"}
    if extra:
        failures.append(f"mmcv-full 1.7.2+source: keys {sorted(extra)} beside its files")


def check_snapshot(records, files, failures):
    check_source_build(records, files, failures)
    records = [r for r in records if r["name"] != "mmcv-full"]
    names = {r["name"] for r in records}
    for r in records:
        key = (r["name"], Version(r["version"]))
        where = f"{r['name']} {r['version']}"
        if key not in files:
            failures.append(f"{where}: not served by the mirror")
            continue
        listed = {a["filename"]: a for a in r["artifacts"]}
        if set(listed) != set(files[key]):
            failures.append(f"{where}: artifacts {sorted(listed)}, served {sorted(files[key])}")
        for filename, path in files[key].items():
            a = listed.get(filename)
            if a and (a["sha256"] != sha256(path) or a.get("size") != os.path.getsize(path)):
                failures.append(f"{where}: {filename} sha256/size differ from the served file")
        meta = metadata_of(sorted(files[key].values())[0])
        want = sorted(str(Requirement(t)) for t in meta.get_all("Requires-Dist") or []
                      if applies(Requirement(t)))
        got = sorted(str(Requirement(t)) for t in r.get("requires", []))
        if got != want:
            failures.append(f"{where}: requires {got}, metadata says {want}")
        if SpecifierSet(r.get("python", "")) != SpecifierSet(meta.get("Requires-Python") or ""):
            failures.append(f"{where}: python {r.get('python')} != {meta.get('Requires-Python')}")
        for t in r.get("requires", []):
            if canonicalize_name(Requirement(t).name) not in names:
                failures.append(f"{where}: requires {t}, which has no record (closure)")
    for root in map(Requirement, ROOTS):
        name = canonicalize_name(root.name)
        allowed = {v for (n, v) in files if n == name and root.specifier.contains(v)}
        kept = {Version(r["version"]) for r in records if r["name"] == name}
        if not allowed <= kept:
            failures.append(f"root {root}: served {sorted(map(str, allowed))}, kept "
                            f"{sorted(map(str, kept))}")


def check_lock(lock, files, failures):
    packages = {canonicalize_name(p["name"]): p for p in lock.get("package", [])}
    assert packages, "the lock has no packages"
    for name, p in packages.items():
        artifacts = p.get("artifacts", [])
        key = (name, Version(p["version"]))
        # The binary's own generated layer (PyPI, matrix/generated/) holds newer releases than
        # the mirror: those come with PyPI's URL and hash, which is what an offline lock needs.
        if key not in files and len(artifacts) == 1 and artifacts[0].get("sha256") and \
                artifacts[0]["url"].startswith("https://files.pythonhosted.org/"):
            continue
        if len(artifacts) != 1 or key not in files:
            failures.append(f"{name} {p['version']}: artifacts {artifacts}")
            continue
        a = artifacts[0]
        path = files[key].get(a["filename"])
        if path is None or a.get("sha256") != sha256(path) or a.get("size") != os.path.getsize(path):
            failures.append(f"{name}: artifact {a} does not match the served file")
            continue
        for text in metadata_of(path).get_all("Requires-Dist") or []:
            r = Requirement(text)
            dep = packages.get(canonicalize_name(r.name))
            if not applies(r):
                continue
            if dep is None or not r.specifier.contains(dep["version"], prereleases=True):
                failures.append(f"{name} requires {text}: locked {dep and dep['version']}")
    builds = [b for b in lock.get("build", [])
              if b.get("source", {}).get("filename") == "sdistonly-1.0.tar.gz"
              and b["source"].get("sha256")]
    if len(builds) != 1:
        failures.append(f"sdistonly: want one build step installing its sdist, got {builds}")


def check_port_lock(bevenv, work, files, failures):
    """The port's mmcv-full build installs the snapshot's sdist, hash-checked, with its env."""
    lockfile = os.path.join(work, "port.lock")
    run([bevenv, "-q", "--matrix", os.path.join(work, "snapshot1"), "lock", "--profile",
         "bevfusion-torch2", "--gpu", "sm_90", "--cuda-driver", "13.0", "-o", lockfile],
        os.path.join(work, "cache-port"))
    with open(lockfile, "rb") as f:
        lock = tomllib.load(f)
    path = files[("mmcv-full", Version("1.7.2"))]["mmcv-full-1.7.2.tar.gz"]
    builds = [b for b in lock.get("build", []) if b.get("package") == "mmcv-full"]
    source = builds[0].get("source", {}) if len(builds) == 1 else {}
    if source.get("sha256") != sha256(path) or not source.get("url", "").startswith("http://127."):
        failures.append(f"port lock: mmcv-full builds {builds}, want the mirror's sdist")
    elif builds[0].get("commands") or builds[0].get("env", {}).get("MMCV_WITH_OPS") != "1":
        failures.append(f"port lock: mmcv-full build {builds[0]}: commands, or no MMCV_WITH_OPS")
    else:
        print("port lock: mmcv-full built from the mirror's sdist, hash-checked")


def main():
    bevenv, wheels = sys.argv[1], sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory(prefix="bevenv-snapshot-") as work:
        mirror = os.path.join(work, "mirror")
        os.makedirs(mirror)
        for f in os.listdir(wheels):
            if f.endswith(".whl"):
                shutil.copy(os.path.join(wheels, f), mirror)
        make_sdist(mirror)
        for version in ("1.7.1", "1.7.2"):
            make_sdist(mirror, "mmcv-full", version, requires=[])
        files = served(mirror)
        config = os.path.join(work, "snapshot.toml")
        with open(config, "w") as f:
            f.write(f"roots = {ROOTS!r}\npythons = [\"{PYTHON}\"]\n"
                    "platforms = [\"linux_x86_64\"]\nprofiles = []\n".replace("'", '"'))
        server, url = start_server(mirror, work)
        try:
            outputs = []
            for i in (1, 2):  # a cold cache each time: the bytes come from the index twice
                out = os.path.join(work, f"snapshot{i}")
                run([bevenv, "-q", "matrix", "snapshot", "--config", config, "-o", out,
                     "--index-url", url, "--date", "2026-12-01"], os.path.join(work, f"cache{i}"))
                with open(os.path.join(out, "pypi.toml"), "rb") as f:
                    outputs.append(f.read())
        finally:
            server.kill()
        if outputs[0] != outputs[1]:
            failures.append("two snapshots of the same mirror differ")
        records = tomllib.loads(outputs[0].decode())["package"]
        check_snapshot(records, files, failures)
        print(f"snapshot: {len(records)} releases of {len({r['name'] for r in records})} packages")

        # Offline: no index option, the snapshot as an overlay; the server is gone.
        lockfile = os.path.join(work, "bevenv.lock")
        requires = [arg for root in ROOTS for arg in ("--require", root)]
        run([bevenv, "-q", "--matrix", os.path.join(work, "snapshot1"), "lock", *requires,
             "--python", PYTHON, "-o", lockfile], os.path.join(work, "cache-lock"))
        with open(lockfile, "rb") as f:
            lock = tomllib.load(f)
        check_lock(lock, files, failures)
        print(f"lock: {len(lock.get('package', []))} packages, each with a hashed artifact")
        check_port_lock(bevenv, work, files, failures)
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
