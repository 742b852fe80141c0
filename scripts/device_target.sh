#!/usr/bin/env bash
# What the lead runs on an H200 machine (the device tool) for issue #13: `bevenv lock` with no
# target flags detects the driver and GPUs, locks a port where the official stack cannot run, and
# `bevenv doctor` against that lock. Needs a bundle from scripts/make_bundle.sh in BUNDLE
# (default .device/bundle). Writes reports to OUT.
set -u
B=${BUNDLE:-.device/bundle}
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
step() { echo; echo "=== $*"; }
step "machine"; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
step "nvml probe alone"; /usr/bin/time -f "%e s" "$B/bevenv-probe" --only nvml >"$OUT/nvml.json"
step "lock uniad-2.0, no target flags"
/usr/bin/time -f "%e s" "$B/bevenv" lock --profile uniad-2.0 -o "$OUT/uniad-2.0.lock"; echo "rc=$?"
grep -E '^(cuda_driver|gpus|cuda|base_image|TORCH_CUDA_ARCH_LIST) ' "$OUT/uniad-2.0.lock" | head
"$B/bevenv" why torch --lockfile "$OUT/uniad-2.0.lock" | tail -2
step "lock uniad (official main), no target flags"
"$B/bevenv" lock --profile uniad -o "$OUT/uniad.lock"; echo "rc=$?"
step "lock bevfusion, no target flags"
"$B/bevenv" lock --profile bevfusion -o "$OUT/bevfusion.lock"; echo "rc=$?"
step "variables override detection"
BEVENV_GPUS=sm_86 BEVENV_CUDA_DRIVER=12.2 "$B/bevenv" lock --profile bevfusion -o "$OUT/b86.lock"
echo "rc=$?"
step "a driver version where a CUDA version belongs"
"$B/bevenv" lock --profile uniad-2.0 --gpu sm_90 --cuda-driver 580.95.05 -o "$OUT/d.lock"
echo "rc=$?"
step "doctor against the detected uniad-2.0 lock"
"$B/bevenv" doctor --lockfile "$OUT/uniad-2.0.lock" --skip nccl; echo "rc=$?"
"$B/bevenv" --json doctor --lockfile "$OUT/uniad-2.0.lock" --skip nccl >"$OUT/doctor.json"
python3 - "$OUT/doctor.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        if "id" in x and "status" in x:
            yield x
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)
for f in walk(r):
    if any(k in f["id"] for k in ("driver", "arch", "gpu", "cuda", "kernel")):
        print(f["id"], f["status"], f.get("summary", f.get("message", ""))[:140])
PY
