#!/usr/bin/env bash
# What the lead runs on a 2 x H200 machine (the device tool), in one call: the probe and doctor on
# one GPU, the single-process NCCL probe on both GPUs beside PyTorch's all_reduce, and the
# multi-process rank probe under torchrun and mpirun. Needs a bundle from scripts/make_bundle.sh
# in BUNDLE (default .device/bundle) and a lockfile made for an sm_86 target beside it.
set -u
B=${BUNDLE:-.device/bundle}
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
PY=$(command -v python3)
step() { echo; echo "=== $*"; }
step "machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

step "bevenv-probe on one GPU (all probes)"
CUDA_VISIBLE_DEVICES=0 timeout 120 "$B/bevenv-probe" --python "$PY" >"$OUT/probe1.json"; echo "rc=$?"
"$PY" - "$OUT/probe1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("status:", r["status"], {k: r[k].get("status") for k in ("host","driver","nvml","kernel","nccl","python") if isinstance(r.get(k), dict)})
d = r["driver"]; print("driver cuda", d.get("cuda_version"), "devices", [(x["name"], x["sm"]) for x in d.get("devices", [])])
for k in r["kernel"].get("devices", []): print("kernel", k.get("arch"), k.get("image"), "kernel_ms", k.get("kernel_ms"), "wrong", k.get("wrong_elements"), k.get("status"))
PY

step "bevenv doctor on one GPU (-v)"
CUDA_VISIBLE_DEVICES=0 timeout 90 "$B/bevenv" doctor -v --python "$PY"; echo "rc=$?"
step "doctor wall time on one GPU, 5 runs, and without the NCCL probe"
for i in 1 2 3 4 5; do
  TIMEFORMAT="full doctor: %R s"; time (CUDA_VISIBLE_DEVICES=0 "$B/bevenv" -q doctor --python "$PY" >/dev/null 2>&1)
done
for c in driver gpus kernel python shm nccl; do
  TIMEFORMAT="doctor --check $c: %R s"; time (CUDA_VISIBLE_DEVICES=0 "$B/bevenv" -q doctor --check $c --python "$PY" >/dev/null 2>&1)
done

step "doctor against a lock made for sm_86 / CUDA 11.3 (drift, arch)"
CUDA_VISIBLE_DEVICES=0 timeout 90 "$B/bevenv" doctor --python "$PY" --lockfile "$B/bevfusion86.lock"; echo "rc=$?"
step "doctor, driver reported as CUDA 10.2 (too old for the lock)"
CUDA_VISIBLE_DEVICES=0 timeout 90 "$B/bevenv" doctor --python "$PY" --lockfile "$B/bevfusion86.lock" --cuda-version-override 10.2 --check driver-cuda; echo "rc=$?"

step "NCCL probe over both GPUs in one process, and PyTorch all_reduce in the same run"
timeout 120 "$B/bevenv-probe" --only nccl --python "$PY" >"$OUT/probe2.json"; echo "rc=$?"
torchrun --nnodes 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29730 \
  bench/cluster_allreduce_torch.py >"$OUT/torch.json" 2>"$OUT/torch.err"; echo "torch rc=$?"
"$PY" - "$OUT/probe2.json" "$OUT/torch.json" <<'PY'
import json, sys
probe = json.load(open(sys.argv[1]))["nccl"]; torch = json.load(open(sys.argv[2]))
t = {r["bytes"]: r for r in torch.get("results", torch.get("collective", {}).get("results", []))}
print("nccl correct:", probe.get("correct"), "gpus:", probe.get("gpus"), "version:", probe.get("version"))
for r in probe.get("results", []):
    o = t.get(r["bytes"], {})
    cells = ["%s %7.1f GB/s ratio %.3f" % (m, o[m]["busbw_gbps"], r["busbw_gbps"] / o[m]["busbw_gbps"])
             for m in ("graph", "queued", "blocking") if m in o]
    print("%4d MiB  probe busbw %7.1f GB/s  torch: %s" % (r["bytes"] >> 20, r["busbw_gbps"], "  ".join(cells)))
PY

step "bevenv-probe --rank under torchrun and mpirun (tests/gpu/test_cluster_gpu.sh)"
timeout 200 bash tests/gpu/test_cluster_gpu.sh "$B/bevenv-probe" "$PY"; echo "rc=$?"
