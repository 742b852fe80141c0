"""Reading a release's requirements from PyPI without bevenv: a wheel's METADATA through HTTP
range requests (Python's zipfile over a seekable view of the remote file), an sdist's
`*.egg-info/requires.txt` or PKG-INFO from the whole (small) archive. The closure oracle uses it
for stand-ins of artifacts whose hosts are unreachable here (download.pytorch.org, OpenMMLab)."""

import email.parser
import io
import json
import tarfile
import urllib.request
import zipfile

from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

SIMPLE = "https://pypi.org/simple"
JSON_PAGE = "application/vnd.pypi.simple.v1+json"


class RemoteFile(io.RawIOBase):
    """A read-only, seekable view of an HTTP resource, one range request per read."""

    def __init__(self, url):
        self.url, self.pos = url, 0
        head = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(head, timeout=60) as response:
            self.size = int(response.headers["Content-Length"])

    def seekable(self):
        return True

    def readable(self):
        return True

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.size}[whence]
        self.pos = base + offset
        return self.pos

    def tell(self):
        return self.pos

    def readinto(self, buffer):
        if self.pos >= self.size or len(buffer) == 0:
            return 0
        end = min(self.pos + len(buffer), self.size) - 1
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={self.pos}-{end}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            data = response.read()
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)


def files_of(name):
    """PyPI's PEP 691 listing of `name`: a list of {filename, url, ...}."""
    request = urllib.request.Request(f"{SIMPLE}/{canonicalize_name(name)}/",
                                     headers={"Accept": JSON_PAGE})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)["files"]


def _wheel_requires(url):
    with zipfile.ZipFile(io.BufferedReader(RemoteFile(url), 1 << 16)) as archive:
        member = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(member).decode("utf-8")
    message = email.parser.Parser().parsestr(text, headersonly=True)
    return message.get_all("Requires-Dist") or []


def _sdist_members(url):
    """(member names, read(name) -> bytes) of a .tar.gz or .zip sdist."""
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
    if url.endswith(".zip"):
        archive = zipfile.ZipFile(io.BytesIO(data))
        return archive.namelist(), archive.read
    archive = tarfile.open(fileobj=io.BytesIO(data))
    return archive.getnames(), lambda name: archive.extractfile(name).read()


def _sdist_requires(url):
    names, read = _sdist_members(url)
    egg = [n for n in names if n.endswith(".egg-info/requires.txt") and n.count("/") == 2]
    if not egg:
        info = next(n for n in names if n.endswith("/PKG-INFO") and n.count("/") == 1)
        message = email.parser.Parser().parsestr(read(info).decode("utf-8"), headersonly=True)
        return message.get_all("Requires-Dist") or []
    text = read(egg[0]).decode("utf-8")
    # requires.txt: plain requirements, then `[extra]` or `[:marker]` sections; only the
    # unconditional part is what every install needs.
    out = []
    for line in text.splitlines():
        if line.startswith("["):
            break
        if line.strip():
            out.append(line.strip())
    return out


def requires_of(name, version, python_tag="cp38"):
    """The Requires-Dist PyPI's files of `name==version` declare: from a wheel for `python_tag`
    on manylinux x86_64 (or a pure wheel) when there is one, else from the sdist."""
    wheels, sdists = [], []
    for f in files_of(name):
        filename = f["filename"]
        if filename.endswith(".whl"):
            _, v, _, tags = parse_wheel_filename(filename)
            if str(v) == version and any(
                    t.interpreter in (python_tag, "py3") and
                    ("x86_64" in t.platform or t.platform == "any") for t in tags):
                wheels.append(f["url"])
        elif filename.endswith((".tar.gz", ".zip")):
            try:
                _, v = parse_sdist_filename(filename)
            except Exception:
                continue
            if str(v) == version:
                sdists.append(f["url"])
    if wheels:
        return _wheel_requires(wheels[0])
    if sdists:
        return _sdist_requires(sdists[0])
    raise LookupError(f"PyPI has no wheel or sdist of {name} {version}")
