#!/usr/bin/env bash
# What the lead runs on an H200 machine (the device tool) for issues #13, #14 and #15: each
# port locked with no target flags and `bevenv doctor` against it (#13), `bevenv doctor` on the
# machine's own Python with no lock (#14: which problems and warnings it reports), and doctor's
# wall time with empty and warm caches beside PyTorch's collect_env (#15). Needs a bundle from
# scripts/make_bundle.sh in BUNDLE (default .device/bundle). Writes locks and reports to OUT.
set -u
B=${BUNDLE:-.device/bundle}
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
step() { echo; echo "=== $*"; }

# The findings of a doctor --json report that are not ok, one line each; with `arch`, only those
# about the driver, the CUDA runtime, the GPUs and their kernels.
findings() {
  python3 - "$@" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
only_arch = len(sys.argv) > 2
def walk(x):
    if isinstance(x, dict):
        if "id" in x and "status" in x:
            yield x
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)
seen = 0
for f in walk(report):
    about_arch = any(k in f["id"] for k in ("driver", "arch", "gpu", "cuda", "kernel"))
    if only_arch and not about_arch:
        continue
    if only_arch or f["status"] != "ok":
        seen += 1
        print(" ", f["id"], f["status"], str(f.get("summary", f.get("message", "")))[:160])
print("  summary:", report.get("summary"))
PY
}

step "machine"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__)'

for official in bevfusion uniad bevformer; do
  step "#13: lock $official, no target flags"
  "$B/bevenv" lock --profile "$official" -o "$OUT/$official.lock" 2>&1 | head -6
done
for port in bevfusion-torch2 uniad-torch2 bevformer-torch2 uniad-2.0; do
  step "#13: lock $port, no target flags; doctor against it"
  "$B/bevenv" lock --profile "$port" -o "$OUT/$port.lock" 2>&1 | head -4
  echo "rc=${PIPESTATUS[0]}"
  grep -E '^(cuda_driver|gpus|cuda|base_image|TORCH_CUDA_ARCH_LIST) ' "$OUT/$port.lock" | head
  "$B/bevenv" why torch --lockfile "$OUT/$port.lock" 2>&1 | tail -2
  "$B/bevenv" --json doctor --lockfile "$OUT/$port.lock" --skip nccl >"$OUT/doctor-$port.json"
  echo "doctor rc=$?"
  findings "$OUT/doctor-$port.json" arch
done

step "#14: doctor on this machine's Python, no lock"
(cd "$OUT" && "$B/bevenv" doctor --python "$(command -v python3)"); echo "rc=$?"
(cd "$OUT" && "$B/bevenv" --json doctor --python "$(command -v python3)") >"$OUT/doctor-host.json"
findings "$OUT/doctor-host.json"

step "#15: doctor wall time (seconds), empty caches then warm"
python3 - "$B/bevenv" "$OUT" <<'PY'
import os, statistics, subprocess, sys, tempfile, time
bevenv, out = sys.argv[1], sys.argv[2]
def timed(args, env):
    start = time.perf_counter()
    code = subprocess.run(args, env=env, cwd=out, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - start, code
def row(name, args, runs, fresh):
    times, codes = [], set()
    warm_home = tempfile.mkdtemp()
    if not fresh:
        timed(args, dict(os.environ, XDG_CACHE_HOME=warm_home))  # fills the cache, not timed
    for _ in range(runs):
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp() if fresh else warm_home)
        seconds, code = timed(args, env)
        times.append(seconds)
        codes.add(code)
    print(f"{name:<34} median {statistics.median(times):.3f} min {min(times):.3f} "
          f"max {max(times):.3f} exit {sorted(codes)}")
skip = [bevenv, "doctor", "--skip", "nccl"]
row("doctor --skip nccl, empty cache", skip, 5, True)
row("doctor --skip nccl, warm", skip, 7, False)
row("doctor (with nccl), empty cache", [bevenv, "doctor"], 3, True)
row("doctor (with nccl), warm", [bevenv, "doctor"], 7, False)
row("python3 -m torch.utils.collect_env", ["python3", "-m", "torch.utils.collect_env"], 3, False)
PY
