#!/usr/bin/env bash
# cmake/Pgo.cmake, configured for real: each wrong setting stops the configure with a message
# that says what to do, and each right one puts its flags on every compile command (GCC 11+);
# with another compiler, asking for a profile is refused by name.
# Usage: pgo_settings.sh SOURCE_DIR CXX COMPILER_ID COMPILER_VERSION
set -euo pipefail
source_dir=$1 cxx=$2 compiler_id=$3 compiler_version=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
cases=0

configure() {  # NAME, then cmake arguments; the output goes to $work/NAME.out
  local name=$1
  shift
  cmake -S "$source_dir" -B "$work/$name" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
    -DBEVENV_TESTS=OFF "$@" >"$work/$name.out" 2>&1
}

fail() {
  echo "FAIL $1: $2" >&2
  sed 's/^/    /' "$work/$1.out" >&2 || true
  failures=$((failures + 1))
}

refused() {  # NAME, the text the refusal must hold, then cmake arguments
  local name=$1 text=$2
  shift 2
  cases=$((cases + 1))
  if configure "$name" "$@"; then
    fail "$name" "configured; expected a refusal saying \`$text\`"
  elif ! grep -qF -- "$text" "$work/$name.out"; then
    fail "$name" "refused without saying \`$text\`"
  fi
}

flags_on_every_compile() {  # NAME, a flag every compile command must carry, then cmake arguments
  local name=$1 flag=$2
  shift 2
  cases=$((cases + 1))
  if ! configure "$name" "$@"; then
    fail "$name" "did not configure"
    return
  fi
  local commands=$work/$name/compile_commands.json
  local total with
  total=$(grep -c '"command"' "$commands" || true)
  with=$(grep '"command"' "$commands" | grep -cF -- "$flag" || true)
  if ((total == 0 || with != total)); then
    fail "$name" "$with of $total compile commands carry \`$flag\`"
  fi
}

mkdir -p "$work/profiles"
if [[ $compiler_id == GNU ]] && ((${compiler_version%%.*} >= 11)); then
  refused unknown_mode "it takes \`generate\` or \`use\`" -DBEVENV_PGO=sometimes \
    -DBEVENV_PGO_DIR="$work/profiles"
  refused no_dir "BEVENV_PGO needs BEVENV_PGO_DIR" -DBEVENV_PGO=generate
  refused no_profiles "BEVENV_PGO=use: no profiles in" -DBEVENV_PGO=use \
    -DBEVENV_PGO_DIR="$work/none"
  flags_on_every_compile generate "-fprofile-generate=$work/profiles" -DBEVENV_PGO=generate \
    -DBEVENV_PGO_DIR="$work/profiles"
  flags_on_every_compile use "-fprofile-use=$work/profiles" -DBEVENV_PGO=use \
    -DBEVENV_PGO_DIR="$work/profiles"
  flags_on_every_compile use_paths "-fprofile-prefix-path=$work/use_paths" -DBEVENV_PGO=use \
    -DBEVENV_PGO_DIR="$work/profiles"
else
  refused other_compiler "BEVENV_PGO needs GCC 11 or newer" -DBEVENV_PGO=generate \
    -DBEVENV_PGO_DIR="$work/profiles"
fi
echo "$((cases - failures)) of $cases cases hold ($compiler_id $compiler_version)"
((failures == 0))
