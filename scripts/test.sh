#!/usr/bin/env bash
# Every test: set up, build with warnings as errors, run the whole suite (conformance included),
# then the unit tests again under ASan+UBSan (clang), then a short run of each fuzzer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

echo "== build (g++, -Werror) and test"
BUILD_DIR=$root/build "$root/scripts/build.sh" -DBEVENV_WERROR=ON
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" ${CTEST_ARGS:-}

echo "== ASan+UBSan build (clang) and unit tests"
BUILD_DIR=$root/build-asan "$root/scripts/build.sh" -DBEVENV_WERROR=ON -DBEVENV_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-14
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$(nproc)" -LE 'slow|network'

echo "== fuzz (short run of each parser)"
"$root/tests/fuzz/run.sh" "${FUZZ_SECONDS:-30}"
