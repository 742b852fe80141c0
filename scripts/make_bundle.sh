#!/usr/bin/env bash
# Copies the single-file `bevenv-static` (as `bevenv`) and `bevenv-probe` from BUILD_DIR into
# OUT_DIR, stripped: what a GPU node without libsolv, libarchive or toml++ needs. bevenv-static
# links everything statically (src/cli/static/static_binary.cmake); bevenv-probe links only libc
# and loads the driver's libraries itself.
set -euo pipefail
build_dir=${1:?usage: make_bundle.sh BUILD_DIR OUT_DIR}
out_dir=${2:?usage: make_bundle.sh BUILD_DIR OUT_DIR}
static=$build_dir/src/cli/bevenv-static
if [ ! -x "$static" ]; then
  echo "make_bundle: no $static; run scripts/static_libsolv.sh, then scripts/build.sh" >&2
  exit 2
fi
mkdir -p "$out_dir"
cp "$static" "$out_dir/bevenv"
cp "$build_dir/probes/bevenv-probe" "$out_dir/"
strip "$out_dir/bevenv" "$out_dir/bevenv-probe"
du -sh "$out_dir"/*
