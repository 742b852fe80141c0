#!/usr/bin/env bash
# Copies `bevenv` and `bevenv-probe` from BUILD_DIR with every shared library bevenv needs beyond
# glibc into OUT_DIR, so the pair runs on a machine without libsolv, libcurl or libarchive
# (for example a GPU node): run OUT_DIR/bevenv, which finds its libraries through $ORIGIN.
set -euo pipefail
build_dir=${1:?usage: make_bundle.sh BUILD_DIR OUT_DIR}
out_dir=${2:?usage: make_bundle.sh BUILD_DIR OUT_DIR}
mkdir -p "$out_dir"
cp "$build_dir/src/cli/bevenv" "$build_dir/probes/bevenv-probe" "$out_dir/"
strip "$out_dir/bevenv" "$out_dir/bevenv-probe"
# glibc and the loader come from the target system; everything else travels.
ldd "$out_dir/bevenv" | awk '/=> \// {print $3}' |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out_dir/"; done
# DT_RPATH (not RUNPATH) on the binary and every library: RUNPATH is not searched for the
# dependencies of dependencies, so libcurl would not find the libssh2 beside it.
for file in "$out_dir"/bevenv "$out_dir"/*.so*; do
  patchelf --force-rpath --set-rpath '$ORIGIN' "$file"
done
du -sh "$out_dir"
