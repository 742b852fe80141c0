#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz and runs each for SECONDS seconds
# (default 60), printing how many inputs each one executed. The seed is fixed (FUZZ_SEED, default
# 1) so that a run repeats: CI's short runs then pass or fail the same way on the same code, and a
# longer run here (FUZZ_SEED=0: a new seed each time) is what explores.
#   tests/fuzz/run.sh [SECONDS]
set -euo pipefail

seconds="${1:-60}"
# BEVENV_FUZZ_SOURCE_DIR / BEVENV_FUZZ_BUILD_DIR / BEVENV_FUZZ_TARGETS override the defaults
# (the repository, build-fuzz, every tests/fuzz/fuzz_*.cpp).
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source_dir="${BEVENV_FUZZ_SOURCE_DIR:-${repo}}"
build="${BEVENV_FUZZ_BUILD_DIR:-${repo}/build-fuzz}"

# A build directory already configured with the fuzz targets (scripts/test.sh's ASan tree) is
# used as it is: configuring it again here would change its flags and rebuild everything.
if ! grep -qs '^BEVENV_FUZZ:BOOL=ON' "${build}/CMakeCache.txt"; then
  cmake -S "${source_dir}" -B "${build}" -G Ninja -DBEVENV_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ >/dev/null
fi
targets=()
if [[ -n "${BEVENV_FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"${BEVENV_FUZZ_TARGETS}"
else
  for source in "${repo}"/tests/fuzz/fuzz_*.cpp; do
    targets+=("$(basename "${source}" .cpp)")
  done
fi
cmake --build "${build}" --target "${targets[@]}" -j2

status=0
for target in "${targets[@]}"; do
  corpus="${build}/fuzz-corpus/${target}"
  mkdir -p "${corpus}"
  # Committed seeds (real reports and logs, tests/fuzz/corpus/TARGET) come first; inputs as
  # long as the longest seed may be tried. Else a few seeds with the grammar's words get the
  # fuzzer past the first characters quickly.
  seeds="${repo}/tests/fuzz/corpus/${target}"
  max_len=256
  if [[ -d "${seeds}" ]]; then
    cp -n "${seeds}"/* "${corpus}/"
    longest="$(wc -c "${seeds}"/* | sort -n | tail -n 2 | head -n 1 | awk '{print $1}')"
    max_len=$((longest > max_len ? longest : max_len))
  elif [[ -z "$(ls -A "${corpus}")" ]]; then
    i=0
    for seed in "1!2.0rc1.post2.dev3+cu113" "v1.0-1" "1.0a.post.dev" $'>=1.0, !=1.1.*\n1.1\n1.0rc1' \
        $'~=1.4.5,<2\n1.4.5+local\n1.5' $'===foo\nfoo' $'==1.0+local\n1.0'; do
      printf '%s' "${seed}" >"${corpus}/seed${i}"
      i=$((i + 1))
    done
  fi
  log="${build}/${target}.log"
  binary="$(find "${build}" -type f -name "${target}" -perm -u+x | head -n 1)"
  echo "== ${target}: ${seconds}s"
  # Pages need room for a few links; header blocks for a few lines.
  case "${target}" in
    fuzz_index_pages) ((max_len >= 8192)) || max_len=8192 ;;
    fuzz_index_headers) ((max_len >= 1024)) || max_len=1024 ;;
  esac
  mkdir -p "${build}/crashes"
  if "${binary}" -seed="${FUZZ_SEED:-1}" -max_total_time="${seconds}" -max_len="${max_len}" \
      -artifact_prefix="${build}/crashes/${target}-" -print_final_stats=1 "${corpus}" \
      >"${log}" 2>&1; then
    execs="$(grep -E '^stat::number_of_executed_units' "${log}" | awk '{print $2}')"
    echo "   ok: ${execs:-?} executions in ${seconds}s; $(grep -E "DONE" "${log}" | tail -n 1)"
  else
    status=1
    echo "   FAILED (see ${log})"
    tail -n 30 "${log}"
  fi
done
exit "${status}"
