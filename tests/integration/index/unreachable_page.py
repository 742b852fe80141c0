#!/usr/bin/env python3
"""A curated package served from one find-links page per (CUDA, torch) pair, as OpenMMLab serves
mmcv-full, with every page unreachable: the lock reads only the page of the record the request
can choose, and its error names that page (not another pair's) with a hint that works: a mirror
of the page given with `--find-links` stands in for it, and the lock then succeeds with the
mirror's file and hash.

Usage: unreachable_page.py BEVENV
"""

import hashlib
import io
import os
import socket
import subprocess
import sys
import tempfile
import tomllib
import zipfile

WHEEL = "Wheel-Version: 1.0\nGenerator: bevenv-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def write_wheel(directory, name, version, requires=()):
    dist = f"{name}-{version}"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    path = os.path.join(directory, f"{dist}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{dist}.dist-info/METADATA", "\n".join(lines) + "\n")
        archive.writestr(f"{dist}.dist-info/WHEEL", WHEEL)
        archive.writestr(f"{dist}.dist-info/RECORD", "")
    return path


def dead_page(tag):
    """A loopback URL nothing listens on: the connection is refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/dist/{tag}/index.html"


def overlay(directory, page_old, page_new):
    os.makedirs(directory)
    with open(os.path.join(directory, "ops.toml"), "w") as f:
        f.write(f'''[[package]]
name = "basepin"
version = "1.0"
deps = "complete"
sources = ["https://example.org/test-overlay"]

[[package]]
name = "basepin"
version = "2.0"
deps = "complete"
sources = ["https://example.org/test-overlay"]

[[package]]
name = "opsw"
version = "1.0"
sources = ["https://example.org/test-overlay"]
variants = [
  {{ local = "old", published = false, find_links = "{page_old}", requires = ["basepin==1.0"] }},
  {{ local = "new", published = false, find_links = "{page_new}", requires = ["basepin==2.0"] }},
]

[[profile]]
name = "opsprof"
summary = "a stack whose compiled package comes from a per-pair page"
python = "{PYTHON}"
requires = ["basepin==2.0", "opsw"]
sources = ["https://example.org/test-overlay"]
''')


def lock(bevenv, work, matrix, extra):
    out = os.path.join(work, "bevenv.lock")
    done = subprocess.run(
        [bevenv, "--matrix", matrix, "lock", "--profile", "opsprof", "--python", PYTHON,
         "-o", out] + extra,
        capture_output=True, text=True,
        env=dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"), NO_COLOR="1",
                 PIP_CONFIG_FILE="/dev/null"))
    return done, out


def main():
    bevenv = sys.argv[1]
    work = tempfile.mkdtemp(prefix="bevenv-unreachable-")
    page_old, page_new = dead_page("old"), dead_page("new")
    matrix = os.path.join(work, "matrix")
    overlay(matrix, page_old, page_new)
    mirror = os.path.join(work, "mirror")
    os.makedirs(mirror)
    others = os.path.join(work, "others")
    os.makedirs(others)
    opsw = write_wheel(mirror, "opsw", "1.0", ["basepin==2.0"])
    write_wheel(mirror, "basepin", "2.0")
    write_wheel(others, "basepin", "2.0")

    # The index path is on (a local source of the other packages, which decides what exists of
    # them), the pages are not reachable.
    done, _ = lock(bevenv, work, matrix, ["--no-index", "--find-links", others])
    assert done.returncode in (1, 3), f"exit {done.returncode}: {done.stderr}"
    assert page_new in done.stderr, f"the error does not name the profile's page:\n{done.stderr}"
    assert page_old not in done.stderr, f"the error names another pair's page:\n{done.stderr}"
    assert "--find-links" in done.stderr, f"no hint about a mirror:\n{done.stderr}"

    # Following the hint: the mirror stands in for the page.
    done, out = lock(bevenv, work, matrix, ["--no-index", "--find-links", mirror])
    assert done.returncode == 0, f"with the mirror: exit {done.returncode}: {done.stderr}"
    with open(out, "rb") as f:
        packages = {p["name"]: p for p in tomllib.load(f)["package"]}
    artifact = packages["opsw"]["artifacts"][0]
    with open(opsw, "rb") as f:
        assert artifact["sha256"] == hashlib.sha256(f.read()).hexdigest(), artifact
    print("unreachable-page: the error names the profile's page; a mirror stands in for it")


if __name__ == "__main__":
    main()
