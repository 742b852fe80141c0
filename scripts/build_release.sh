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

compiler=${CXX:-c++}
if [[ ${PGO:-1} == 0 ]] || ! "$compiler" --version 2>/dev/null | grep -q '(GCC)\|Free Software'; then
  echo "build_release: a Release build without a profile (PGO=0 or not GCC: \`$compiler\`)" >&2
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
