#!/usr/bin/env bash
# Builds the release bevenv into BUILD_DIR (default: build-release), optimised with a profile of
# its own runs (cmake/Pgo.cmake): an instrumented bevenv is built in BUILD_DIR-profile and locks
# every shipped profile offline (scripts/pgo_train.sh), then BUILD_DIR is built with what those
# runs recorded. Extra arguments go to cmake, for both builds. With a compiler other than GCC 11+,
# or PGO=0, it is a plain Release build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build-release}
release=(-DCMAKE_BUILD_TYPE=Release -DBEVENV_TESTS=OFF)

# cmake/Pgo.cmake refuses BEVENV_PGO with any compiler but GCC 11 or newer: ask the compiler
# CMake will pick whether it is one, rather than let that configure fail.
compiler=${CXX:-c++}
gcc_11_or_newer() {
  printf '#if defined(__clang__) || !defined(__GNUC__) || __GNUC__ < 11\n#error\n#endif\n' |
    "$compiler" -E -x c++ - >/dev/null 2>&1
}
if [[ ${PGO:-1} == 0 ]] || ! gcc_11_or_newer; then
  echo "build_release: a Release build without a profile" \
    "(PGO=0, or \`$compiler\` is not GCC 11+)" >&2
  BUILD_DIR=$build_dir "$root/scripts/build.sh" "${release[@]}" -DBEVENV_PGO= "$@"
  exit 0
fi

profile_build=$build_dir-profile
profiles=$profile_build/profiles
BUILD_DIR=$profile_build BUILD_TARGET=bevenv "$root/scripts/build.sh" "${release[@]}" \
  -DBEVENV_PGO=generate -DBEVENV_PGO_DIR="$profiles" "$@"
# Only the training runs count: the build itself ran instrumented tools (the matrix compiler).
rm -rf "$profiles"
"$root/scripts/pgo_train.sh" "$profile_build/src/cli/bevenv"
BUILD_DIR=$build_dir "$root/scripts/build.sh" "${release[@]}" -DBEVENV_PGO=use \
  -DBEVENV_PGO_DIR="$profiles" "$@"
