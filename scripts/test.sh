#!/usr/bin/env bash
# Every test: set up, build with warnings as errors, run the whole suite (conformance included),
# then the unit tests again under ASan+UBSan (clang), then a short run of each fuzzer. The fuzz
# targets are built in the ASan tree: one clang build of the libraries serves both.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

echo "== build (g++, -Werror) and test"
BUILD_DIR=$root/build "$root/scripts/build.sh" -DBEVENV_WERROR=ON
# The buildah end-to-end test (10-20 minutes, mostly buildah copying layers and pip inside the
# chroot) and the Debian 11 chroot test of bevenv-static (debootstrap, about two minutes) run
# beside the rest of the suite and the ASan build instead of before them.
buildah_log=$root/build/buildah-e2e.log
ctest --test-dir "$root/build" --output-on-failure -L 'buildah|portable' ${CTEST_ARGS:-} \
  >"$buildah_log" 2>&1 &
buildah_pid=$!
trap 'kill "$buildah_pid" 2>/dev/null || true' EXIT
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" -LE 'buildah|portable' ${CTEST_ARGS:-}

echo "== ASan+UBSan build (clang, fuzz targets included) and unit tests"
BUILD_DIR=$root/build-asan "$root/scripts/build.sh" -DBEVENV_WERROR=ON -DBEVENV_SANITIZE=ON \
  -DBEVENV_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-14

echo "== buildah end-to-end and the Debian 11 chroot (g++ tree)"
buildah_status=0
wait "$buildah_pid" || buildah_status=$?
trap - EXIT
cat "$buildah_log"
[ "$buildah_status" -eq 0 ] || exit "$buildah_status"

ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$(nproc)" -LE 'slow|network'

echo "== fuzz (short run of each parser)"
# 23 targets: 10 s each keeps the fuzz run near 4 minutes of the CI budget.
BEVENV_FUZZ_BUILD_DIR=$root/build-asan "$root/tests/fuzz/run.sh" "${FUZZ_SECONDS:-10}"
