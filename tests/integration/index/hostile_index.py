#!/usr/bin/env python3
"""A loopback index that serves what an attacker would: sdist URLs full of shell syntax, file
names that climb out of the cache, `file://` links on a remote page. Each case must end in a
clear error or a safe result:

- shell: the lock of sdist-only packages whose URLs hold `;`, `$(...)`, `&`, `'` (directly and
  through another wheel's Requires-Dist) succeeds, and every RUN line of the Dockerfile that
  `build-image --dry-run` writes is run by bash (installers stubbed): no command from a URL
  runs. pip itself then downloads each build's source from its requirement file, hash-checked.
  URLs that RFC 3986 forbids (spaces, backticks, braces) are refused as links.
- traversal: wheel names whose build tag holds `/` and `..` (`%2F` in HTML, raw in PEP 691 JSON)
  are refused; nothing appears outside the work directory (checked with strace when present).
- local: a remote page linking `file:///...` makes bevenv neither open that file nor ask the
  server for the packages its metadata names.

Usage: hostile_index.py BEVENV
"""

import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import tomllib
import urllib.parse
import zipfile

WHEEL = "Wheel-Version: 1.0\nGenerator: bevenv-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def wheel_bytes(name, version, requires=()):
    dist = f"{name}-{version}"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(f"{dist}.dist-info/METADATA", "\n".join(lines) + "\n")
        archive.writestr(f"{dist}.dist-info/WHEEL", WHEEL)
        archive.writestr(f"{dist}.dist-info/RECORD", "")
    return out.getvalue()


def sdist_bytes(name, version):
    dist = f"{name}-{version}"
    files = {
        f"{dist}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/setup.py": f"from setuptools import setup\nsetup(name={name!r}, version={version!r})\n",
    }
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


class Index:
    """Pages per project (HTML or PEP 691 JSON) and files looked up by their last path segment,
    so a link may carry any payload before the file name. Every request path is logged."""

    def __init__(self):
        self.pages = {}  # project -> (content type, body)
        self.files = {}  # last path segment (decoded) -> bytes
        self.requests = []
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                index.requests.append(self.path)
                path = urllib.parse.urlsplit(self.path).path
                match = re.fullmatch(r"/simple/([^/]+)/", path)
                if match and match.group(1) in index.pages:
                    kind, body = index.pages[match.group(1)]
                    return self.reply(200, kind, body.encode())
                name = urllib.parse.unquote(path.rsplit("/", 1)[-1])
                if not match and name in index.files:
                    return self.reply(200, "application/octet-stream", index.files[name])
                self.reply(404, "text/plain", b"not found")

            def reply(self, status, kind, body):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def html(self, project, links):
        anchors = "".join(f'<a href="{href}">{text}</a>\n' for href, text in links)
        self.pages[project] = ("text/html", f"<html><body>\n{anchors}</body></html>\n")

    def json(self, project, files):
        body = {"meta": {"api-version": "1.0"}, "name": project, "files": files}
        self.pages[project] = ("application/vnd.pypi.simple.v1+json", json.dumps(body))


def run(command, work, **kwargs):
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"), PIP_CONFIG_FILE="/dev/null",
               NO_COLOR="1")
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=work, **kwargs)


def lock(bevenv, index, work, requires, trace=None):
    out = os.path.join(work, "bevenv.lock")
    command = [bevenv, "lock", "--index-url", index.base + "/simple", "--python", PYTHON,
               "-o", out]
    for r in requires:
        command += ["--require", r]
    if trace:
        command = ["strace", "-f", "-qq", "-e", "trace=openat,creat,mkdir,rename,link,symlink",
                   "-o", trace] + command
    return run(command, work), out


def assert_clean_failure(done, what):
    assert done.returncode in (1, 2, 3), f"{what}: exit {done.returncode}: {done.stderr}"
    assert "internal error" not in done.stderr, f"{what}: {done.stderr}"
    assert done.stderr.strip(), f"{what}: failed without a message"


def run_lines(dockerfile):
    """The shell text of every RUN instruction, continuation lines joined, BuildKit mounts cut."""
    lines, current = [], None
    for raw in dockerfile.splitlines():
        if current is None:
            if not raw.startswith("RUN "):
                continue
            current = raw[4:]
        else:
            current += "\n" + raw
        if not raw.endswith("\\"):
            lines.append(re.sub(r"^(--mount=\S+\s*\\?\s*)+", "", current.lstrip()))
            current = None
    return lines


def check_shell_case(bevenv, index, work, marker):
    # RFC 3986 allows every character of these payloads: they reach the lock and must be quoted
    # or kept out of the shell.
    payloads = {
        "injsemi": "/x;touch$IFS" + marker + ";/",
        "injsub": "/a$(touch$IFS" + marker + ")b/",
        "injamp": "/files/",
        "injquote": "/x';touch$IFS" + marker + ";'/",
    }
    queries = {"injamp": "?a=1&touch$IFS" + marker + "&b=2"}
    for name, prefix in payloads.items():
        filename = f"{name}-1.0.tar.gz"
        index.files[filename] = sdist_bytes(name, "1.0")
        digest = hashlib.sha256(index.files[filename]).hexdigest()
        href = f"{prefix}{filename}{queries.get(name, '')}#sha256={digest}"
        index.html(name, [(href, filename)])
    index.files["wrap-1.0-py3-none-any.whl"] = wheel_bytes("wrap", "1.0", ["injsemi", "injsub"])
    index.html("wrap", [("/w/wrap-1.0-py3-none-any.whl", "wrap-1.0-py3-none-any.whl")])
    # A wheel whose page publishes no sha256 (like download.pytorch.org's): pinned by its URL in
    # requirements.unhashed.txt, which must keep the URL away from every shell line too.
    nohash = "nohash-1.0-py3-none-any.whl"
    index.files[nohash] = wheel_bytes("nohash", "1.0")
    index.html("nohash", [("/x;touch$IFS" + marker + ";/" + nohash, nohash)])

    done, lockfile = lock(bevenv, index, work, ["wrap", "injamp", "injquote", "nohash"])
    assert done.returncode == 0, f"shell: lock failed ({done.returncode}): {done.stderr}"
    with open(lockfile, "rb") as f:
        locked = tomllib.load(f)
    builds = {b["package"]: b for b in locked.get("build", [])}
    assert set(builds) == set(payloads), f"shell: builds {sorted(builds)}"
    for name, b in builds.items():
        assert "commands" not in b, f"shell: build of {name} carries commands: {b}"
        assert b["source"]["sha256"], b

    out = os.path.join(work, "image")
    done = run([bevenv, "build-image", "--dry-run", "--no-input-check", "--lockfile", lockfile,
                "--base-image", "debian:12", "-o", out], work)
    assert done.returncode == 0, f"shell: build-image failed ({done.returncode}): {done.stderr}"
    with open(os.path.join(out, "Dockerfile"), encoding="utf-8") as f:
        dockerfile = f.read()
    assert marker not in dockerfile, "shell: a payload reached the Dockerfile"

    # Every RUN line, run for real by bash with the installers stubbed: only a command that came
    # from a URL could create the marker.
    stubs = os.path.join(work, "stubs")
    os.makedirs(stubs)
    for tool in ("pip", "apt-get", "useradd", "add-apt-repository", f"python{PYTHON}"):
        with open(os.path.join(stubs, tool), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(stubs, tool), 0o755)
    env = dict(os.environ, PATH=stubs + ":/usr/bin:/bin")
    for line in run_lines(dockerfile):
        subprocess.run(["bash", "-o", "pipefail", "-c", line], env=env, cwd=work,
                       capture_output=True)
    assert not os.path.exists(marker), "shell: a RUN line ran a command from a URL"

    # pip reads each build's requirement file: the URL travels as data and the hash is checked.
    for name in payloads:
        requirement = os.path.join(out, f"build-{name}.txt")
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--isolated",
                               "--require-hashes", "-q", "-r", requirement,
                               "-d", os.path.join(work, "downloads")],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"shell: pip download {name}: {done.stderr}"
    assert not os.path.exists(marker), "shell: pip ran a command from a URL"

    # The wheel without a recorded sha256, if the lock kept none, is read by pip from its file.
    artifacts = next(p for p in locked["package"] if p["name"] == "nohash").get("artifacts", [])
    if artifacts and not all(a.get("sha256") for a in artifacts):
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--isolated",
                               "-q", "-r", os.path.join(out, "requirements.unhashed.txt"),
                               "-d", os.path.join(work, "downloads")],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"shell: pip download nohash: {done.stderr}"
        assert os.path.exists(os.path.join(work, "downloads", nohash)), "shell: nohash not fetched"
    assert not os.path.exists(marker), "shell: pip ran a command from an unhashed URL"

    # Links RFC 3986 forbids never become candidates.
    for n, prefix in enumerate(["/a`touch " + marker + "`b/", "/x;touch${IFS}" + marker + ";/",
                                "/a b/"]):
        name = f"refused{n}"
        filename = f"{name}-1.0.tar.gz"
        index.files[filename] = sdist_bytes(name, "1.0")
        index.html(name, [(prefix + filename, filename)])
        done, _ = lock(bevenv, index, work, [name])
        assert_clean_failure(done, f"shell: refused link {prefix!r}")
    assert not os.path.exists(marker)


def check_traversal(bevenv, index, work, canary, use_strace):
    victim = os.path.join(canary, "y-py3-none-any.whl")
    climb = "../" * 24 + canary.lstrip("/") + "/y-py3-none-any.whl"
    index.files["y-py3-none-any.whl"] = wheel_bytes("trav", "1.0")
    encoded = "trav-1.0-1" + urllib.parse.quote("/" + climb, safe="")
    index.html("trav", [("/f/" + encoded, "trav")])
    index.json("travj", [{"filename": "travj-1.0-1/" + climb, "url": "/f/" + encoded,
                          "hashes": {}}])
    for name in ("trav", "travj"):
        trace = os.path.join(work, f"strace-{name}.log") if use_strace else None
        done, _ = lock(bevenv, index, work, [name], trace)
        assert_clean_failure(done, f"traversal ({name})")
        assert not os.path.exists(victim), f"traversal ({name}): wrote {victim}"
        assert os.listdir(canary) == ["keep"], f"traversal ({name}): {os.listdir(canary)}"
        if trace:
            with open(trace, encoding="utf-8", errors="replace") as f:
                touched = [line for line in f if canary in line]
            assert not touched, f"traversal ({name}): bevenv touched the canary: {touched[:3]}"


def check_local_link(bevenv, index, work, use_strace):
    local = os.path.join(work, "local")
    os.makedirs(local)
    secret = os.path.join(local, "loc-1.0-py3-none-any.whl")
    with open(secret, "wb") as f:
        f.write(wheel_bytes("loc", "1.0", ["exfil"]))
    index.html("loc", [("file://" + secret, "loc-1.0-py3-none-any.whl")])
    index.html("exfil", [])
    trace = os.path.join(work, "strace-local.log") if use_strace else None
    done, _ = lock(bevenv, index, work, ["loc"], trace)
    assert_clean_failure(done, "local link")
    asked = [p for p in index.requests if "exfil" in p]
    assert not asked, f"local link: bevenv asked for {asked}"
    if trace:
        with open(trace, encoding="utf-8", errors="replace") as f:
            opened = [line for line in f if secret in line]
        assert not opened, f"local link: bevenv opened the local file: {opened[:3]}"


def main():
    bevenv = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="bevenv-hostile-")
    canary = tempfile.mkdtemp(prefix="bevenv-canary-")
    with open(os.path.join(canary, "keep"), "w") as f:
        f.write("keep\n")
    marker = os.path.join(tempfile.gettempdir(), f"bevenv-pwned-{os.getpid()}")
    use_strace = shutil.which("strace") is not None
    if not use_strace:
        print("hostile-index: strace not found; the filesystem watch is skipped")
    index = Index()
    try:
        check_shell_case(bevenv, index, work, marker)
        check_traversal(bevenv, index, work, canary, use_strace)
        check_local_link(bevenv, index, work, use_strace)
    finally:
        index.server.shutdown()
        if os.path.exists(marker):
            os.remove(marker)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(canary, ignore_errors=True)
    print("hostile-index: shell, traversal and local-link payloads all ended safely")


if __name__ == "__main__":
    main()
