#!/usr/bin/env bash
# Configures and builds bevenv into BUILD_DIR (default: build). Extra arguments go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
cmake -S "$root" -B "$build_dir" -G Ninja -DPython3_EXECUTABLE="$(command -v python3)" "$@" >/dev/null
cmake --build "$build_dir" -j "$jobs"
