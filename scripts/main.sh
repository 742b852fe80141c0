#!/usr/bin/env bash
# The main job on the embedded default: set up, build, then lock the bevfusion profile offline.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
BUILD_DIR=$root/build "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release -DBEVENV_TESTS=OFF
bevenv=$root/build/src/cli/bevenv
"$bevenv" --version
"$bevenv" matrix check
