#!/usr/bin/env bash
# Configures and builds bevenv into BUILD_DIR (default: build). Extra arguments go to cmake;
# BUILD_TARGET names one target to build instead of all.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
# The static libsolv scripts/setup.sh built (when there is one): `bevenv` links it, and the
# single-file bevenv-static is built.
static_libsolv=()
if libsolv_a=$("$root/scripts/static_libsolv.sh" --cached 2>/dev/null); then
  static_libsolv=(-DBEVENV_STATIC_LIBSOLV="$libsolv_a")
fi
cmake -S "$root" -B "$build_dir" -G Ninja -DPython3_EXECUTABLE="$(command -v python3)" \
  "${static_libsolv[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$jobs" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
