#!/usr/bin/env python3
"""Lock time of bevenv against uv and pip-compile on a real requirement set (the BEVFormer
profile's PyPI pins) against a loopback mirror of real PyPI metadata, cold and warm cache,
in one run with the tools interleaved. Prints times and ratios.

Usage: index_pypi_mirror.py BEVENV [--profile NAME | --closure NAME | --requirements FILE]
                             [--newest N] [--runs N] [--timeout S] [--work DIR] [--refresh]
                             [--serve]

Sets: `--profile NAME` (default bevformer) takes a profile's PyPI pins, as below. `--closure NAME`
takes every package of BEVENV's offline lock of profile NAME (the whole environment, 100-170
packages), pinned to its locked version, less what PyPI does not carry (the same rule as for
profile pins). `--requirements FILE` takes a requirement file (for example
bench/sets/datascience.txt, a general set whose closure has a few hundred packages); with
`--newest N`, only the newest N versions that each requirement on a project allows are
mirrored (every tool sees the same mirror, so the comparison stays fair; roots keep their
specifiers).

Set-up (once, reused under --work unless --refresh): the roots are the `bevformer` profile's
requirements (with those of `uniad`, which it extends) that PyPI carries: pins with a local
version label (`+cu111`, `+source`) and packages the matrix takes from other indexes (torch,
torchvision, torchaudio, mmcv-full) or need them (timm needs torch; the matrix records of
mmdet and mmsegmentation need mmcv-full) are left out. For every package
reached from them, the PEP 691 JSON page of https://pypi.org/simple/ is fetched, and the core
metadata of every wheel that fits CPython 3.8 on manylinux x86_64 (glibc <= 2.31) of every
version the requirements met so far allow (root pins hold for their package), breadth first,
with markers evaluated for that target and the extras asked for. The PyPI this machine reaches
publishes no PEP 658 files (`.metadata` is a 404 and pages carry no `core-metadata`), so each
wheel's `*.dist-info/METADATA` is read with HTTP range requests (the zip's central directory,
then that one member): the same bytes PyPI's PEP 658 files carry.

The mirror (a ThreadingHTTPServer on 127.0.0.1) serves each project page as PEP 691 JSON or
PEP 503 HTML by the Accept header, listing the files whose metadata was mirrored (the real
file names, sha256 and sizes; yanked files, sdists and wheels for other targets are left out,
so no tool has to build an sdist), their `.metadata` files, and the wheels themselves, fetched
from PyPI the first time a tool asks (pip-compile downloads the wheels it pins) and checked
against the page's sha256. Pages carry PyPI's `Cache-Control: max-age=600`, files
`max-age=31536000, immutable`. Pinned releases without a wheel for the target (mmdet3d
0.17.1 is an sdist) are left out of the roots, and the script says so.

Rows (median of --runs; bevenv and uv alternate, each round in the other order; pip-compile
runs once per cache state, after them):
  bevenv cold / warm     `bevenv lock --index-url MIRROR --python 3.8 --glibc 2.31 --require ...`
                         with an empty / a reused XDG_CACHE_HOME
  uv cold / warm         `uv pip compile --index-url MIRROR --python-version 3.8.18
                         --python-platform x86_64-manylinux_2_31`, empty / reused --cache-dir
  pip-compile cold/warm  pip-compile (pip-tools in a Python 3.8 venv made at set-up) with
                         `--index-url MIRROR`, empty / reused --cache-dir
Each tool's pins are compared: the script prints where they differ.
"""

import argparse
import concurrent.futures
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.request
import zipfile

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PYPI = "https://pypi.org/simple"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
PYTHON = "3.8.18"
GLIBC_MINOR = 31
# Packages the matrix takes from the PyTorch index or OpenMMLab's pages, and those that need
# them (timm needs torch; the matrix records of mmdet and mmsegmentation need mmcv-full): a
# PyPI mirror cannot stand in for those sources.
NOT_FROM_PYPI = {"torch", "torchvision", "torchaudio", "mmcv-full", "timm", "mmdet",
                 "mmsegmentation"}
PYTHON_38 = "/root/.pyenv/versions/3.8.18/bin/python3.8"


def profile_roots(name):
    with open(os.path.join(REPO, "matrix", "data", "profiles.toml"), "rb") as f:
        profiles = {p["name"]: p for p in tomllib.load(f)["profile"]}
    chain = []
    while name:
        chain.append(profiles[name])
        name = profiles[name].get("extends")
    pins = {}
    for profile in reversed(chain):  # the derived profile wins
        for text in profile.get("requires", []):
            requirement = Requirement(text)
            pins[canonicalize_name(requirement.name)] = requirement
    roots = []
    for name, requirement in sorted(pins.items()):
        if name in NOT_FROM_PYPI or "+" in str(requirement.specifier):
            continue
        roots.append(requirement)
    return roots


def closure_roots(bevenv, name):
    """The offline lock of profile `name` (CPython 3.8, an sm_86 GPU, driver CUDA 12.8) as
    `name==version` roots, less what PyPI does not carry."""
    with tempfile.TemporaryDirectory() as work:
        lock = os.path.join(work, "closure.lock")
        subprocess.run([bevenv, "-q", "lock", "--profile", name, "--python", "3.8", "--gpu",
                        "sm_86", "--cuda-driver", "12.8", "-o", lock], check=True)
        with open(lock, "rb") as f:
            packages = tomllib.load(f)["package"]
    roots = []
    for package in packages:
        version = package["version"]
        if package["name"] in NOT_FROM_PYPI or "+" in version:
            continue
        roots.append(Requirement(f"{package['name']}=={version}"))
    return sorted(roots, key=lambda r: canonicalize_name(r.name))


def without_torch_dependents(directory, projects, roots):
    """The roots less those whose mirrored release needs, directly or through another root, a
    package the matrix takes from elsewhere (torchpack needs torch): bevenv takes that from the
    PyTorch index, which cannot be reached here, where uv and pip-compile take PyPI's."""
    env = marker_environment()
    needs = {}
    for r in roots:
        name = canonicalize_name(r.name)
        wanted = set()
        for f in projects.get(name, []):
            if not r.specifier.contains(parse_wheel_filename(f["filename"])[1], True):
                continue
            path = os.path.join(directory, "metadata", f["filename"] + ".metadata")
            with open(path, encoding="utf-8", errors="replace") as text:
                wanted |= {canonicalize_name(d.name) for d in requires_dist(text.read(), (), env)}
        needs[name] = wanted
    dropped = set(NOT_FROM_PYPI)
    while True:
        more = {n for n, wanted in needs.items() if n not in dropped and wanted & dropped}
        if not more:
            break
        dropped |= more
    kept = [r for r in roots if canonicalize_name(r.name) not in dropped]
    return kept, sorted(dropped - set(NOT_FROM_PYPI))


def file_roots(path):
    """Requirements of a requirement file, one per line; `#` starts a comment."""
    with open(path, encoding="utf-8") as f:
        lines = [line.split("#", 1)[0].strip() for line in f]
    return [Requirement(line) for line in lines if line]


def target_tags():
    platforms = [f"manylinux_2_{m}_x86_64" for m in range(GLIBC_MINOR, 4, -1)]
    platforms += ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64",
                  "linux_x86_64"]
    tags = list(cpython_tags((3, 8), platforms=platforms))
    tags += list(compatible_tags((3, 8), "cp38", platforms))
    return set(tags)


def marker_environment():
    env = default_environment()
    env.update({"python_version": "3.8", "python_full_version": PYTHON,
                "implementation_version": PYTHON, "sys_platform": "linux",
                "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
                "platform_python_implementation": "CPython", "implementation_name": "cpython"})
    return env


def fetch(url, accept=None, attempts=4):
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.read()
        except Exception:  # noqa: BLE001 - network hiccups: retry, then fail loudly
            if attempt == attempts - 1:
                raise
            time.sleep(0.5 * 2 ** attempt)
    raise AssertionError("unreachable")


class RangeFile(io.RawIOBase):
    """A remote file read with HTTP range requests; the tail (where a zip keeps its central
    directory) is fetched in one request and kept."""

    TAIL = 1 << 16

    def __init__(self, url, size):
        super().__init__()
        self.url, self.size, self.pos = url, size, 0
        start = max(0, size - self.TAIL)
        self.tail_start, self.tail = start, self.get(start, size - 1)

    def get(self, first, last):
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={first}-{last}"})
        for attempt in range(4):
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    body = response.read()
                    if response.status == 206:
                        return body
                    return body[first:last + 1]  # a server that ignored the range
            except Exception:  # noqa: BLE001 - network hiccups: retry, then fail loudly
                if attempt == 3:
                    raise
                time.sleep(0.5 * 2 ** attempt)
        raise AssertionError("unreachable")

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=0):
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def read(self, n=-1):
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if self.pos >= end:
            return b""
        if self.pos >= self.tail_start:
            data = self.tail[self.pos - self.tail_start:end - self.tail_start]
        else:
            data = self.get(self.pos, max(end, min(self.size, self.pos + self.TAIL)) - 1)
            data = data[:end - self.pos]
        self.pos += len(data)
        return data


def wheel_metadata(f):
    """The wheel's `*.dist-info/METADATA`, byte for byte: what PEP 658 serves as `.metadata`;
    None for a wheel that is not a zip or whose METADATA is ambiguous (left out of the mirror)."""
    name, version, _, _ = parse_wheel_filename(f["filename"])
    try:
        with zipfile.ZipFile(RangeFile(f["url"].split("#")[0], f["size"])) as wheel:
            names = [n for n in wheel.namelist()
                     if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            if len(names) > 1:  # a few old wheels carry a stray second .dist-info
                names = [n for n in names if n.split("/")[0].lower().replace("_", "-") ==
                         f"{name}-{version}.dist-info"]
            return wheel.read(names[0]) if len(names) == 1 else None
    except zipfile.BadZipFile:
        return None


def fitting_files(page, tags):
    """Files of a PEP 691 page that fit the target, by version."""
    by_version = {}
    for f in page["files"]:
        if not f["filename"].endswith(".whl") or f.get("yanked") or not f.get("size"):
            continue
        requires_python = f.get("requires-python")
        try:
            if requires_python and not SpecifierSet(requires_python).contains(PYTHON, True):
                continue
            _, version, _, file_tags = parse_wheel_filename(f["filename"])
        except Exception:  # noqa: BLE001 - names and specifiers PyPI lets through unparsed
            continue
        if file_tags & tags:
            by_version.setdefault(version, []).append(f)
    return by_version


def requires_dist(text, extras, env):
    out = []
    for line in text.split("\n\n", 1)[0].splitlines():
        if not line.lower().startswith("requires-dist:"):
            continue
        requirement = Requirement(line.split(":", 1)[1].strip())
        marker = requirement.marker
        if marker is None or any(marker.evaluate({**env, "extra": e}) for e in ("", *extras)):
            out.append(requirement)
    return out


def build_mirror(directory, roots, newest=None):
    """Breadth-first closure of `roots` over real PyPI pages and metadata files; with `newest`,
    only that many of the newest allowed versions of each project."""
    tags, env = target_tags(), marker_environment()
    root_spec = {canonicalize_name(r.name): r.specifier for r in roots}
    asked = {}  # name -> (set of specifier texts, set of extras)
    pages, kept, done = {}, {}, set()  # kept: name -> {filename: file}
    queue = []

    def ask(requirement):
        name = canonicalize_name(requirement.name)
        specs, extras = asked.setdefault(name, (set(), set()))
        before = (len(specs), len(extras))
        specs.add(str(requirement.specifier))
        extras.update(requirement.extras)
        if (len(specs), len(extras)) != before or name not in pages:
            queue.append(name)

    for r in roots:
        ask(r)
    pool = concurrent.futures.ThreadPoolExecutor(32)
    metadata = {}  # filename -> bytes
    unreadable = set()
    while queue:
        names = sorted(set(queue))
        queue.clear()
        missing = [n for n in names if n not in pages]
        for name, body in zip(missing, pool.map(
                lambda n: fetch(f"{PYPI}/{n}/", JSON_TYPE), missing)):
            pages[name] = json.loads(body)
        wanted = []
        for name in names:
            by_version = fitting_files(pages[name], tags)
            specs = [SpecifierSet(s) for s in asked[name][0]]
            allowed = [v for v in by_version if any(s.contains(v, True) for s in specs)]
            if name in root_spec:
                # A root's own specifier decides, unless no wheel meets it (a locked sdist-only
                # release): then what the other requirements allow is mirrored.
                pinned = [v for v in by_version if root_spec[name].contains(v, True)]
                allowed = pinned or allowed
            if newest is not None:
                # The newest few of each requirement's own range, so that a requirement that
                # caps a project (botocore's urllib3 < 1.27) still finds versions under its
                # cap: the newest of the union alone left boto3 unsolvable.
                keep = set()
                for spec in specs:
                    keep.update(sorted((v for v in allowed if spec.contains(v, True)),
                                       reverse=True)[:newest])
                allowed = sorted(keep, reverse=True)
            for version in allowed:
                for f in by_version[version]:
                    if f["filename"] in unreadable:
                        continue
                    kept.setdefault(name, {})[f["filename"]] = f
                    if f["filename"] not in metadata:
                        wanted.append((name, f))
        print(f"  {len(names)} projects, {len(wanted)} wheels to read", file=sys.stderr)
        for (name, f), body in zip(wanted, pool.map(wheel_metadata, [f for _, f in wanted])):
            if body is None:
                unreadable.add(f["filename"])
                del kept[name][f["filename"]]
                continue
            metadata[f["filename"]] = body
            for requirement in requires_dist(body.decode("utf-8", "replace"), asked[name][1],
                                             env):
                ask(requirement)
        for name in names:  # extras asked later apply to files read earlier
            for filename in kept.get(name, {}):
                text = metadata[filename].decode("utf-8", "replace")
                for requirement in requires_dist(text, asked[name][1], env):
                    key = canonicalize_name(requirement.name)
                    if str(requirement.specifier) not in asked.get(key, (set(),))[0]:
                        ask(requirement)
    pool.shutdown()
    os.makedirs(os.path.join(directory, "metadata"), exist_ok=True)
    for filename, body in metadata.items():
        with open(os.path.join(directory, "metadata", filename + ".metadata"), "wb") as f:
            f.write(body)
    projects = {}
    for name, files in kept.items():
        projects[name] = [{"filename": f["filename"], "hashes": f["hashes"],
                           "size": f.get("size"), "requires-python": f.get("requires-python"),
                           "core-metadata": {"sha256": hashlib.sha256(
                               metadata[f["filename"]]).hexdigest()}}
                          for f in sorted(files.values(), key=lambda f: f["filename"])]
    origins = {f["filename"]: f["url"].split("#")[0]
               for files in kept.values() for f in files.values()}
    with open(os.path.join(directory, "origins.json"), "w", encoding="utf-8") as f:
        json.dump(origins, f, indent=0, sort_keys=True)
    with open(os.path.join(directory, "projects.json"), "w", encoding="utf-8") as f:
        json.dump(projects, f, indent=0, sort_keys=True)
    return projects, len(metadata)


class MirrorHandler(http.server.BaseHTTPRequestHandler):
    projects = {}
    origins = {}  # wheel file name -> its URL on PyPI
    root = ""
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"
    # Headers and body leave in one segment, as a real index's server sends them: written
    # apart with Nagle's algorithm on, the body waited for the client's delayed ACK, 40 ms per
    # request on one connection (bevenv's cold runs lost 0.3-0.5 s to it).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type, cache):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if cache:
            self.send_header("Cache-Control", cache)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        base = f"http://{self.headers['Host']}"
        path = self.path.split("?", 1)[0]
        project = re.fullmatch(r"/simple/([^/]+)/?", path)
        if project:
            name = canonicalize_name(project.group(1))
            files = self.projects.get(name)
            if files is None:
                return self.send(404, b"not found", "text/plain", None)
            if JSON_TYPE in self.headers.get("Accept", ""):
                page = {"meta": {"api-version": "1.1"}, "name": name, "versions": [],
                        "files": [{**f, "url": f"{base}/files/{f['filename']}"} for f in files]}
                return self.send(200, json.dumps(page).encode(), JSON_TYPE, "max-age=600")
            links = []
            for f in files:
                attrs = f' data-dist-info-metadata="sha256={f["core-metadata"]["sha256"]}"' \
                    if isinstance(f["core-metadata"], dict) else ""
                if f.get("requires-python"):
                    attrs += ' data-requires-python="' + \
                        f["requires-python"].replace("<", "&lt;").replace(">", "&gt;") + '"'
                links.append(f'<a href="{base}/files/{f["filename"]}#sha256='
                             f'{f["hashes"]["sha256"]}"{attrs}>{f["filename"]}</a><br/>')
            body = ("<!DOCTYPE html><html><body>\n" + "\n".join(links) +
                    "\n</body></html>\n").encode()
            return self.send(200, body, "text/html", "max-age=600")
        meta = re.fullmatch(r"/files/([^/]+\.whl)\.metadata", path)
        if meta:
            file = os.path.join(self.root, "metadata", meta.group(1) + ".metadata")
            if os.path.exists(file):
                with open(file, "rb") as f:
                    body = f.read()
                return self.send(200, body, "application/octet-stream",
                                 "max-age=31536000, immutable")
        wheel = re.fullmatch(r"/files/([^/]+\.whl)", path)
        if wheel and wheel.group(1) in self.origins:
            # pip-compile downloads the wheels it pins (pip skips PEP 658 there): the real file,
            # fetched from PyPI on first request and kept, its sha256 checked against the page.
            file = os.path.join(self.root, "wheels", wheel.group(1))
            with self.lock:
                if not os.path.exists(file):
                    self.mirror_wheel(wheel.group(1), file)
            with open(file, "rb") as f:
                body = f.read()
            return self.send(200, body, "application/octet-stream", "max-age=31536000, immutable")
        return self.send(404, b"not found", "text/plain", None)

    def mirror_wheel(self, filename, file):
        body = fetch(self.origins[filename])
        name = canonicalize_name(parse_wheel_filename(filename)[0])
        published = {f["filename"]: f for f in self.projects[name]}[filename]
        if hashlib.sha256(body).hexdigest() != published["hashes"]["sha256"]:
            raise ValueError(f"{filename}: PyPI served other bytes than its page lists")
        os.makedirs(os.path.dirname(file), exist_ok=True)
        with open(file + ".part", "wb") as f:
            f.write(body)
        os.replace(file + ".part", file)


def load_origins(directory, projects):
    """Where each mirrored wheel lives on PyPI (re-read from PyPI's pages when missing)."""
    path = os.path.join(directory, "origins.json")
    if not os.path.exists(path):
        origins = {}
        for name in projects:
            page = json.loads(fetch(f"{PYPI}/{name}/", JSON_TYPE))
            origins.update({f["filename"]: f["url"].split("#")[0] for f in page["files"]})
        wanted = {f["filename"] for files in projects.values() for f in files}
        with open(path, "w", encoding="utf-8") as f:
            json.dump({k: v for k, v in origins.items() if k in wanted}, f, indent=0,
                      sort_keys=True)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class QuietServer(http.server.ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: a client opening more connections at once
    # than that has its SYN dropped and waits a second to retry, which no real index does.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # clients hang up at will
            super().handle_error(request, client_address)


def serve(directory, projects):
    MirrorHandler.projects, MirrorHandler.root = projects, directory
    MirrorHandler.origins = load_origins(directory, projects)
    server = QuietServer(("127.0.0.1", 0), MirrorHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/simple"


def serve_for_profiling(directory, projects, roots, bevenv):
    """Serves the mirror until interrupted and prints bevenv's lock command against it, with
    the roots in a file: for perf and the like on one tool's run."""
    server, url = serve(directory, projects)
    roots_file = os.path.join(directory, "roots.txt")
    with open(roots_file, "w", encoding="utf-8") as f:
        f.write("".join(f"{r}\n" for r in roots))
    print(f"mirror: {url}\nroots: {roots_file}\n"
          f"{bevenv} -q lock --index-url {url} --python {PYTHON} --glibc 2.{GLIBC_MINOR} "
          f"$(sed 's/^/--require /' {roots_file}) -o OUT", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    server.shutdown()
    return 0


def pins_of(text):
    return {canonicalize_name(m.group(1)): m.group(2)
            for m in re.finditer(r"^([A-Za-z0-9._-]+)==(\S+)", text, re.MULTILINE)}


def bevenv_pins(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {canonicalize_name(m.group(1)): m.group(2)
            for m in re.finditer(r'^name = "([^"]+)"\nversion = "([^"]+)"', text, re.MULTILINE)}


class Tools:
    def __init__(self, bevenv, url, roots, work, scratch, pip_compile):
        self.bevenv, self.url, self.roots = bevenv, url, [str(r) for r in roots]
        self.scratch, self.pip_compile = scratch, pip_compile
        self.req_in = os.path.join(scratch, "requirements.in")
        with open(self.req_in, "w", encoding="utf-8") as f:
            f.write("".join(r + "\n" for r in self.roots))
        self.warm = {t: tempfile.mkdtemp(dir=scratch, prefix=f"{t}-warm-")
                     for t in ("bevenv", "uv", "pip-compile")}

    def run(self, tool, state, timeout):
        cache = self.warm[tool] if state == "warm" else tempfile.mkdtemp(dir=self.scratch)
        out = os.path.join(self.scratch, f"out-{tool}")
        if tool == "bevenv":
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            command = [self.bevenv, "-q", "lock", "--index-url", self.url, "--python", PYTHON,
                       "--glibc", f"2.{GLIBC_MINOR}", "-o", out]
            command += [a for r in self.roots for a in ("--require", r)]
        elif tool == "uv":
            env = dict(os.environ, UV_PYTHON_DOWNLOADS="never")
            command = ["uv", "pip", "compile", "--quiet", "--index-url", self.url, "--cache-dir",
                       cache, "--python", PYTHON_38, "--python-version", PYTHON,
                       "--python-platform",
                       f"x86_64-manylinux_2_{GLIBC_MINOR}", "--no-header", "-o", out,
                       self.req_in]
        else:
            env = dict(os.environ)
            command = [self.pip_compile, "--quiet", "--index-url", self.url, "--cache-dir",
                       cache, "--no-header", "--allow-unsafe", "--output-file", out, self.req_in]
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                  env=env, cwd=self.scratch)
        except subprocess.TimeoutExpired:
            return time.perf_counter() - start, None, "timeout"
        seconds = time.perf_counter() - start
        if state == "cold":
            shutil.rmtree(cache, ignore_errors=True)
        if done.returncode != 0:
            return seconds, None, (done.stderr or done.stdout).strip()[-600:]
        pins = bevenv_pins(out) if tool == "bevenv" else pins_of(open(out).read())
        return seconds, pins, ""


def pip_compile_venv(work):
    venv = os.path.join(work, "pip-tools-py38")
    exe = os.path.join(venv, "bin", "pip-compile")
    if not os.path.exists(exe):
        subprocess.run([PYTHON_38, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet",
                        "--disable-pip-version-check", "pip-tools"], check=True)
    return exe


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bevenv")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--profile", help="a profile's PyPI pins (default: bevformer)")
    chosen.add_argument("--closure", help="every package of a profile's offline lock, pinned")
    chosen.add_argument("--requirements", help="a requirement file")
    parser.add_argument("--newest", type=int, help="mirror the newest N versions each requirement allows")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(),
                                                       "bevenv-pypi-mirror"))
    parser.add_argument("--refresh", action="store_true", help="fetch the mirror again")
    parser.add_argument("--serve", action="store_true",
                        help="serve the mirror and print bevenv's command, run nothing")
    args = parser.parse_args()
    if shutil.which("uv") is None:
        print("`uv` not found: run scripts/setup.sh", file=sys.stderr)
        return 2
    if args.closure:
        roots, label = closure_roots(os.path.abspath(args.bevenv), args.closure), \
            f"closure-{args.closure}"
    elif args.requirements:
        roots = file_roots(args.requirements)
        label = os.path.splitext(os.path.basename(args.requirements))[0]
    else:
        roots, label = profile_roots(args.profile or "bevformer"), args.profile or "bevformer"
    if args.newest:
        label += f"-newest{args.newest}"
    directory = os.path.join(args.work, label)
    index_file = os.path.join(directory, "projects.json")
    if args.refresh or not os.path.exists(index_file):
        shutil.rmtree(directory, ignore_errors=True)
        start = time.perf_counter()
        projects, count = build_mirror(directory, roots, args.newest)
        print(f"mirrored {len(projects)} projects, {count} metadata files from {PYPI} in "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
    with open(index_file, encoding="utf-8") as f:
        projects = json.load(f)
    # A root pinned to a release without a wheel for the target (mmdet3d 0.17.1 is an sdist)
    # cannot be locked from a wheels-only mirror by any tool: it is left out, and said so.
    # In a closure, such a package is one that others need: it stays, unpinned.
    kept, dropped, unpinned = [], [], []
    for r in roots:
        versions = {parse_wheel_filename(f["filename"])[1]
                    for f in projects.get(canonicalize_name(r.name), [])}
        if any(r.specifier.contains(v, True) for v in versions):
            kept.append(r)
        elif args.closure and versions:
            kept.append(Requirement(r.name))
            unpinned.append(r)
        else:
            dropped.append(r)
    roots = kept
    needing_torch = []
    if args.closure:
        roots, needing_torch = without_torch_dependents(directory, projects, roots)
    if args.serve:
        return serve_for_profiling(directory, projects, roots, args.bevenv)
    pip_compile = pip_compile_venv(args.work)
    server, url = serve(directory, projects)
    scratch = tempfile.mkdtemp(prefix="bevenv-pypi-bench-")
    tools = Tools(os.path.abspath(args.bevenv), url, roots, args.work, scratch, pip_compile)
    rows = [(t, s) for s in ("cold", "warm") for t in ("bevenv", "uv", "pip-compile")]
    times = {row: [] for row in rows}
    pins, errors = {}, {}
    for tool in ("bevenv", "uv", "pip-compile"):  # fill the warm caches (not counted)
        tools.run(tool, "warm", args.timeout)
    # bevenv and uv alternate, each round in the other order, and pip-compile (seconds of a
    # Python process per run) runs after them: run between the others it left the CPU's caches
    # to whichever tool came next, always the same one.
    order = [[(t, s) for s in ("cold", "warm") for t in tools_order]
             for tools_order in (("bevenv", "uv"), ("uv", "bevenv"))]
    schedule = [row for i in range(args.runs) for row in order[i % 2]]
    schedule += [("pip-compile", "cold"), ("pip-compile", "warm")]
    for tool, state in schedule:
        seconds, answer, error = tools.run(tool, state, args.timeout)
        times[(tool, state)].append(seconds)
        if answer is None:
            errors[(tool, state)] = error
        else:
            pins[tool] = answer
    server.shutdown()
    shutil.rmtree(scratch, ignore_errors=True)
    if dropped:
        print(f"\nleft out (no wheel for the target on PyPI): {' '.join(map(str, dropped))}")
    if needing_torch:
        print(f"\nleft out (they need torch, which bevenv takes from the PyTorch index): "
              f"{' '.join(needing_torch)}")
    if unpinned:
        print(f"\nunpinned (no wheel of the locked release): {' '.join(map(str, unpinned))}")
    shown = " ".join(map(str, roots)) if len(roots) <= 12 else f"{roots[0]} ... {roots[-1]}"
    print(f"\n{label} ({len(roots)} roots: {shown}) "
          f"against a loopback mirror of {len(projects)} projects; CPython 3.8, "
          f"manylinux_2_{GLIBC_MINOR} x86_64; median of {args.runs} (pip-compile: 1 run)")
    median = {row: statistics.median(v) for row, v in times.items() if v}
    print(f"  {'tool':<20} {'time':>10} {'pins':>6}")
    for tool, state in rows:
        shown = f"{median[(tool, state)] * 1000:.0f} ms"
        status = "error" if (tool, state) in errors else str(len(pins.get(tool, {})))
        print(f"  {tool + ' ' + state:<20} {shown:>10} {status:>6}")
    for state in ("cold", "warm"):
        for peer in ("uv", "pip-compile"):
            ratio = median[(peer, state)] / median[("bevenv", state)]
            print(f"  {state}: {peer} / bevenv = {ratio:.2f}x")
    for (tool, state), error in errors.items():
        print(f"  {tool} {state} failed: {error}")
    reference = pins.get("uv", {})
    for tool in ("bevenv", "pip-compile"):
        theirs = pins.get(tool)
        if theirs is None:
            continue
        differ = sorted(n for n in set(reference) | set(theirs)
                        if reference.get(n) != theirs.get(n))
        print(f"  pins of {tool} vs uv: " + ("identical" if not differ else ", ".join(
            f"{n} {theirs.get(n, '-')} vs {reference.get(n, '-')}" for n in differ)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
