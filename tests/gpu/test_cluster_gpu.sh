#!/usr/bin/env bash
# bevenv-probe --rank on two GPUs of this host, launched by torchrun and by mpirun: the
# all-reduce must be correct on both ranks, and its bus bandwidth is set beside PyTorch's
# torch.distributed all_reduce measured in the same run (bench/cluster_allreduce_torch.py).
# Exit 77 (skipped) without two GPUs; a launcher that is not installed is skipped alone.
# usage: test_cluster_gpu.sh PATH/TO/bevenv-probe [PYTHON]
set -u
PROBE=$1
PYTHON=${2:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$HERE/../../bench/cluster_allreduce_torch.py
WORK=$(mktemp -d /tmp/bevenv-cluster-gpu.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
gpus=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | wc -l)
if [ "${gpus:-0}" -lt 2 ]; then echo "skip: fewer than two GPUs"; exit 77; fi
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
# libnccl often lives only in the environment's nvidia-nccl wheel: --python lets the probe find it.
PYARGS=()
PYPATH=$(command -v "$PYTHON" 2>/dev/null) && PYARGS=(--python "$PYPATH")
FAILURES=0 RAN=0
port() { python3 "$(dirname "$0")/../support/free_port_pair.py"; }

# verify NAME FILE: the aggregate of a two-rank run with a correct all-reduce.
verify() {
  if python3 - "$2" <<'PY'; then echo "ok: $1"; else echo "FAIL: $1"; FAILURES=$((FAILURES + 1)); fi
import json, sys
d = json.load(open(sys.argv[1]))
c = d["collective"]
devices = [r["device"].get("uuid") for r in d["ranks"]]
checks = {
    "two ranks reported": d["ranks_reported"] == 2 and d["world_size"] == 2,
    "all-reduce ok and correct": c["status"] == "ok" and c["correct"],
    "three sizes, no wrong element": len(c["results"]) == 3 and all(r["wrong_elements"] == 0 for r in c["results"]),
    "busbw = algbw * 2(n-1)/n": all(abs(r["busbw_gbps"] - r["algbw_gbps"]) < 1e-6 * r["algbw_gbps"] for r in c["results"]),
    "each rank on its own GPU": len(set(devices)) == 2 and None not in devices,
}
for name, ok in checks.items():
    print(("  ok   " if ok else "  FAIL ") + name)
print("  busbw: " + ", ".join("%d MiB %.1f GB/s" % (r["bytes"] >> 20, r["busbw_gbps"]) for r in c["results"]))
sys.exit(0 if all(checks.values()) else 1)
PY
}

if command -v torchrun >/dev/null; then
  RAN=1
  P=$(port)
  torchrun --nnodes 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port $P --no-python \
    "$PROBE" --rank --rank-timeout 120 "${PYARGS[@]}" >"$WORK/torchrun.json" 2>"$WORK/torchrun.err"
  echo "torchrun exit $?"
  verify "torchrun: two ranks, correct all-reduce" "$WORK/torchrun.json" || tail -30 "$WORK/torchrun.err"
  if "$PYTHON" -c "import torch" 2>/dev/null; then
    P=$(port)
    torchrun --nnodes 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port $P \
      "$BENCH" >"$WORK/torch.json" 2>"$WORK/torch.err" || tail -20 "$WORK/torch.err"
    "$PYTHON" "$BENCH" --compare "$WORK/torchrun.json" "$WORK/torch.json" | tee "$WORK/ratio.txt"
    # The same NCCL collective at every size: within a factor two of PyTorch's (NCCL versions
    # can differ between the probe and torch).
    awk '/^largest difference/ { v = $NF; sub("%", "", v); found = 1; ok = (v + 0 < 100) }
         END { exit !(found && ok) }' "$WORK/ratio.txt" && echo "ok: busbw within 2x of torch" \
      || { echo "FAIL: busbw far from torch's"; FAILURES=$((FAILURES + 1)); }
  fi
else
  echo "skip: torchrun not installed"
fi

if command -v mpirun >/dev/null; then
  RAN=1
  P=$(port)
  root=$([ "$(id -u)" = 0 ] && echo --allow-run-as-root)
  mpirun $root -np 2 -x NCCL_NVLS_ENABLE -x PATH -x LD_LIBRARY_PATH \
    "$PROBE" --rank --master 127.0.0.1:$P --rank-timeout 120 "${PYARGS[@]}" >"$WORK/mpirun.json" 2>"$WORK/mpirun.err"
  echo "mpirun exit $?"
  verify "mpirun: two ranks, correct all-reduce" "$WORK/mpirun.json" || tail -30 "$WORK/mpirun.err"
else
  echo "skip: mpirun not installed"
fi

[ $RAN = 1 ] || { echo "skip: neither torchrun nor mpirun"; exit 77; }
echo "cluster GPU tests: $FAILURES failure(s)"
[ $FAILURES = 0 ]
