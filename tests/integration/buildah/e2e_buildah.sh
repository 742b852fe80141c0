#!/usr/bin/env bash
# End-to-end: a real image built with buildah from a lockfile, no network beyond set-up.
# Prepares (cached under WORK_DIR) a Debian bookworm base image made with debootstrap and a
# directory of real wheels and an sdist served on 127.0.0.1, then runs the test binary.
# usage: e2e_buildah.sh TEST_BINARY WORK_DIR BEVENV_PROBE
set -euo pipefail

test_binary=$1
work=$2
probe=$3
here=$(cd "$(dirname "$0")" && pwd)
cache=$work/cache
mkdir -p "$cache"

command -v buildah >/dev/null || { echo "e2e: buildah is not installed" >&2; exit 1; }
storage=(--root "$work/storage" --runroot "$work/runroot" --storage-driver vfs)
base=localhost/bevenv-e2e-base:bookworm-dev

"$here/make_base_rootfs.sh" "$cache/bookworm-python3-dev-rootfs.tar"
if ! buildah "${storage[@]}" inspect --type image "$base" >/dev/null 2>&1; then
  base_context=$work/base-context
  rm -rf "$base_context"
  mkdir -p "$base_context"
  ln "$cache/bookworm-python3-dev-rootfs.tar" "$base_context/rootfs.tar" 2>/dev/null ||
    cp "$cache/bookworm-python3-dev-rootfs.tar" "$base_context/rootfs.tar"
  printf 'FROM scratch\nADD rootfs.tar /\nCMD ["/bin/bash"]\n' >"$base_context/Dockerfile"
  buildah "${storage[@]}" bud --isolation chroot --pull=never -t "$base" "$base_context"
  rm -rf "$base_context"
fi

# Real artifacts from PyPI, once: two wheels and one sdist (compiled in the image).
wheels=$cache/wheels
if [ ! -f "$wheels/.complete" ]; then
  mkdir -p "$wheels"
  python3 -m pip download -q --no-deps --only-binary :all: -d "$wheels" \
    packaging==24.1 six==1.16.0
  python3 -m pip download -q --no-deps --no-binary :all: -d "$wheels" six==1.16.0
  touch "$wheels/.complete"
fi
# A known-bad pin for the verification layer: yapf 0.40.2 (F3) and what it needs on Python 3.11,
# listed in yapf-bad.txt.
if [ ! -f "$wheels/yapf-bad.txt" ]; then
  bad=$cache/yapf-bad
  rm -rf "$bad"
  python3 -m pip download -q --only-binary :all: --python-version 3.11 -d "$bad" yapf==0.40.2
  cp "$bad"/*.whl "$wheels"/
  (cd "$bad" && ls -1 ./*.whl | sed 's|^\./||') >"$wheels/yapf-bad.txt.tmp"
  mv "$wheels/yapf-bad.txt.tmp" "$wheels/yapf-bad.txt"
fi
# An sdist under a path full of shell syntax, built in the image from its `source` (data).
python3 - "$wheels" <<'PY'
import io, os, sys, tarfile
directory = os.path.join(sys.argv[1], "x;true$IFS")
os.makedirs(directory, exist_ok=True)
files = {"tricky-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: tricky\nVersion: 1.0\n",
         "tricky-1.0/setup.py": "from setuptools import setup\nsetup(name='tricky', version='1.0', py_modules=['tricky'])\n",
         "tricky-1.0/tricky.py": "VALUE = 'built from source'\n"}
with tarfile.open(os.path.join(directory, "tricky-1.0.tar.gz"), "w:gz") as archive:
    for path, text in sorted(files.items()):
        data = text.encode()
        info = tarfile.TarInfo(path)
        info.size, info.mtime = len(data), 0
        archive.addfile(info, io.BytesIO(data))
PY

port_file=$work/server.port
rm -f "$port_file"
python3 - "$wheels" "$port_file" <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *args: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
PY
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -f "$port_file" ] && break; sleep 0.1; done
[ -f "$port_file" ] || { echo "e2e: the wheel server did not start" >&2; exit 1; }

export BEVENV_E2E_FIND_LINKS="http://127.0.0.1:$(cat "$port_file")/"
export BEVENV_E2E_WHEELS=$wheels
export BEVENV_E2E_BASE=$base
export BEVENV_E2E_WORK=$work
export BEVENV_E2E_PROBE=$probe
export BEVENV_E2E_STORAGE="--root=$work/storage --runroot=$work/runroot --storage-driver=vfs"
"$test_binary"
