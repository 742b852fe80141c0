#!/usr/bin/env bash
# The runs whose profile optimises the release build (scripts/build_release.sh): what users run
# most and wait on, offline from the embedded matrix. Each shipped profile is locked afresh and
# again over its lockfile on three targets; on the newest GPU the torch 1 profiles cannot lock,
# which trains the explanation too. Then `why`, `export` and `matrix check`.
# Usage: scripts/pgo_train.sh PATH/TO/INSTRUMENTED/bevenv
set -euo pipefail
bevenv=$(readlink -f "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Exit 0 (locked) and 1 (no environment satisfies the request) are both outcomes to train;
# anything else is a fault of the build, and stops it.
run() {
  local status=0
  "$bevenv" "$@" >/dev/null 2>&1 || status=$?
  if ((status > 1)); then
    echo "pgo_train: \`bevenv $*\` exited $status" >&2
    exit 1
  fi
}

mapfile -t profiles < <("$bevenv" --json matrix profiles |
  python3 -c 'import json, sys; print(*(p["name"] for p in json.load(sys.stdin)["profiles"]), sep="\n")')
((${#profiles[@]} > 0)) || { echo "pgo_train: \`bevenv matrix profiles\` lists none" >&2; exit 1; }
for target in "--gpu sm_86 --cuda-driver 12.8" "--gpu sm_90 --cuda-driver 12.8" "--gpu none"; do
  read -ra flags <<<"$target"
  for profile in "${profiles[@]}"; do
    rm -f train.lock
    run lock --profile "$profile" "${flags[@]}" -o train.lock
    run lock --profile "$profile" "${flags[@]}" -o train.lock
  done
done
# The default `bevenv.lock`, which `why` and `export` read.
run lock --profile bevfusion --gpu sm_86 --cuda-driver 12.8
run why setuptools
run export --format requirements -o requirements.txt
run matrix check
echo "pgo_train: ${#profiles[@]} profiles locked on 3 targets" >&2
