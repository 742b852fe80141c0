#!/usr/bin/env bash
# The main job on the embedded matrix: set up, build, then lock the bevfusion profile offline for
# an RTX 3090-class target and explain one of its pins.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
# Release, optimised with a profile of its own locks (two builds: scripts/build_release.sh).
BUILD_DIR=$root/build-release "$root/scripts/build_release.sh"
bevenv=$root/build-release/src/cli/bevenv
out=$root/build-release/main-job
mkdir -p "$out"
cd "$out"
"$bevenv" --version
"$bevenv" matrix check
"$bevenv" lock --profile bevfusion --python 3.8 --cuda-driver 12.2 --gpu sm_86 --platform linux_x86_64
"$bevenv" why setuptools
"$bevenv" export --format requirements -o requirements.txt
# A second, real resolve: the lock must be reproducible to the byte.
"$bevenv" lock --check --profile bevfusion --python 3.8 --cuda-driver 12.2 --gpu sm_86 --platform linux_x86_64
