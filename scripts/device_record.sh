#!/usr/bin/env bash
# What the lead runs on a GPU machine (the device tool) for issue #17 item 4: `doctor --record`
# keeps this host's driver and GPUs; `bevenv lock` with no target flags then takes its target
# from that record, and `bevenv why torch` cites it. Needs a bundle from scripts/make_bundle.sh in
# BUNDLE (default .device/bundle). Writes the record and locks to OUT.
set -u
B=${BUNDLE:-.device/bundle}
OUT=${OUT:-/tmp/device-out}
export XDG_DATA_HOME=$OUT/data
mkdir -p "$OUT"
cd "$OUT" || exit 1
step() { echo; echo "=== $*"; }
step "machine"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
head -1 /proc/driver/nvidia/version
step "doctor --record (no lock)"
"$B/bevenv" doctor --record; echo "rc=$?"
cat "$XDG_DATA_HOME"/bevenv/observed/*.toml
step "lock uniad-2.0, no target flags: the record is the target"
"$B/bevenv" lock --profile uniad-2.0 -o uniad-2.0.lock; echo "rc=$?"
"$B/bevenv" why torch --lockfile uniad-2.0.lock; echo "rc=$?"
step "lock --check and a re-lock with no flags at all: the lock's recorded inputs"
"$B/bevenv" lock --check -o uniad-2.0.lock; echo "rc=$?"
"$B/bevenv" lock -o uniad-2.0.lock; echo "rc=$?"
step "doctor --check gpus with a GPU"
"$B/bevenv" doctor --check gpus; echo "rc=$?"
step "lock bevfusion-torch2, no target flags"
"$B/bevenv" lock --profile bevfusion-torch2 -o bevfusion-torch2.lock; echo "rc=$?"
"$B/bevenv" why torch --lockfile bevfusion-torch2.lock | tail -3
step "lock bevfusion (official), no target flags: the port hint"
"$B/bevenv" lock --profile bevfusion -o bevfusion.lock; echo "rc=$?"
step "a record of another driver is stale: detection decides"
sed -i 's/^driver = ".*"/driver = "1.0.0"/' "$XDG_DATA_HOME"/bevenv/observed/*.toml
"$B/bevenv" lock --profile uniad-2.0 -o stale.lock; echo "rc=$?"
step "matrix check of the record"
"$B/bevenv" matrix check "$XDG_DATA_HOME/bevenv/observed"; echo "rc=$?"
