#!/usr/bin/env bash
# Fetches the real wheels the index tests serve, from PyPI, into DIR (a folder of the build
# tree). Idempotent: a second run with every file present does nothing.
set -euo pipefail
dir=${1:?usage: fetch_wheels.sh DIR}
mkdir -p "$dir"
stamp="$dir/.complete-v1"
[ -f "$stamp" ] && exit 0

python=${PYTHON:-python3}
pins=(
  setuptools==58.0.4 setuptools==59.6.0 yapf==0.40.1 yapf==0.40.2
  importlib-metadata==6.8.0 zipp==3.17.0 platformdirs==4.2.0 tomli==2.0.1
  six==1.16.0 idna==3.7 packaging==23.2
)
for pin in "${pins[@]}"; do
  "$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$dir" "$pin"
done
# Packages with dependencies (resolved by pip for CPython 3.11 on manylinux x86_64), and a
# binary wheel with a platform tag.
"$python" -m pip download -q --disable-pip-version-check --only-binary=:all: \
  --python-version 3.11 --implementation cp --abi cp311 --platform manylinux2014_x86_64 \
  --platform manylinux_2_17_x86_64 -d "$dir" requests==2.31.0 numpy==1.26.4 python-dateutil==2.9.0
touch "$stamp"
