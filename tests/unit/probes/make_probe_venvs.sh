#!/bin/sh
# Test fixture: real virtual environments made from real PyPI wheels, for the Python probe's
# field-failure checks, plus NVIDIA's cuobjdump/nvdisasm wheels to inspect CUBINs.
# Usage: make_probe_venvs.sh ROOT. Wheels are cached in ROOT/wheels, so only the first run
# needs the network; a venv is rebuilt only when its package list changes.
set -eu
root="$1"
python="${PYTHON:-python3}"
wheels="$root/wheels"
mkdir -p "$wheels"
export PIP_DISABLE_PIP_VERSION_CHECK=1

make_venv() {
  name="$1"
  shift
  dir="$root/$name"
  if [ -f "$dir/.packages" ] && [ "$(cat "$dir/.packages")" = "$*" ]; then
    return 0
  fi
  rm -rf "$dir"
  "$python" -m venv "$dir"
  if ! "$dir/bin/pip" install -q --no-index --find-links "$wheels" "$@" 2>/dev/null; then
    "$dir/bin/pip" download -q -d "$wheels" "$@"
    "$dir/bin/pip" install -q --no-index --find-links "$wheels" "$@"
  fi
  echo "$*" > "$dir/.packages"
}

# F2: setuptools 58.0.4 keeps distutils.version importable, 59.6.0 does not.
# F3: yapf 0.40.1 accepts FormatCode(verify=True), 0.40.2 removed it.
make_venv good "setuptools==58.0.4" "yapf==0.40.1"
make_venv bad "setuptools==59.6.0" "yapf==0.40.2"
# F3 bites only beside mmcv 1.x (failures.toml `applies_any`): the same venvs with the metadata of
# mmcv-full 1.4.0 (no code: the doctor's F3 verdict needs it installed, not importable).
with_mmcv_metadata() {
  site="$("$root/$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  info="$site/mmcv_full-1.4.0.dist-info"
  mkdir -p "$info"
  printf 'Metadata-Version: 2.1\nName: mmcv-full\nVersion: 1.4.0\n' >"$info/METADATA"
  echo pip >"$info/INSTALLER"
  : >"$info/RECORD"
}
make_venv good-mmcv "setuptools==58.0.4" "yapf==0.40.1"
with_mmcv_metadata good-mmcv
make_venv bad-mmcv "setuptools==59.6.0" "yapf==0.40.2"
with_mmcv_metadata bad-mmcv
make_venv cudatools "nvidia-cuda-cuobjdump<14" "nvidia-cuda-nvdisasm<14"
