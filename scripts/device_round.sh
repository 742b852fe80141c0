#!/usr/bin/env bash
# What the lead runs on an H200 machine (the device tool) for issues #13, #14 and #15: each
# port locked with no target flags and `bevenv doctor` against it (#13), `bevenv doctor` on the
# machine's own Python with no lock (#14: which problems and warnings it reports), and doctor's
# wall time with empty and warm caches beside PyTorch's collect_env, with torch's architectures
# read from its fatbins compared with `torch.cuda.get_arch_list()` (#15). Needs a bundle from
# scripts/make_bundle.sh in BUNDLE (default .device/bundle). Writes locks and reports to OUT.
set -u
# Absolute: some steps run from OUT.
B=$(cd "${BUNDLE:-.device/bundle}" && pwd)
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
step() { echo; echo "=== $*"; }

findings() { python3 "$(dirname "$0")/device_findings.py" "$@"; }

# First, before anything reads torch's files: doctor on a machine that has never run it.
step "#15: the very first doctor --skip nccl on this machine (cold page cache)"
/usr/bin/time -f "%e s wall" "$B/bevenv" doctor --skip nccl >"$OUT/first-doctor.txt" 2>&1
tail -3 "$OUT/first-doctor.txt"

step "machine"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__)'

step "#15: torch's architectures from its fatbins (bevenv-probe) against torch.cuda.get_arch_list()"
/usr/bin/time -f "%e s wall" "$B/bevenv-probe" --only python --python "$(command -v python3)" \
  >"$OUT/probe-python.json"
python3 - "$OUT/probe-python.json" <<'PY'
import json, sys, torch
torch_facts = json.load(open(sys.argv[1]))["python"]["torch"]
print("  from files:", torch_facts.get("version"), torch_facts.get("cuda"), torch_facts.get("cudnn"),
      torch_facts.get("arch_list"), "extra", torch_facts.get("arch_extra"))
for source in torch_facts.get("arch_sources", []):
    print("   ", source["file"].split("/")[-1], source["containers"], "containers",
          source["entries"], "entries", source["ms"], "ms")
imported = torch.cuda.get_arch_list()
print("  imported:  ", torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), imported)
print("  arch lists equal:", sorted(imported) == sorted(torch_facts.get("arch_list", [])))
PY

# ROUND_ONLY=timing skips the locks (#13), to spend device time on the timings alone.
if [ "${ROUND_ONLY:-}" != timing ]; then
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
  findings "$OUT/doctor-$port.json" --arch
  echo "  not ok:"; findings "$OUT/doctor-$port.json"
done
fi

step "#14: doctor on this machine's Python, no lock"
(cd "$OUT" && "$B/bevenv" doctor --python "$(command -v python3)"); echo "rc=$?"
(cd "$OUT" && "$B/bevenv" --json doctor --python "$(command -v python3)") >"$OUT/doctor-host.json"
findings "$OUT/doctor-host.json"

step "#15: bevenv-probe alone, each probe's own time (they run at once)"
/usr/bin/time -f "%e s wall" "$B/bevenv-probe" --python "$(command -v python3)" >"$OUT/probe-all.json"
python3 - "$OUT/probe-all.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for name in ("host", "python", "driver", "nvml", "kernel", "nccl"):
    section = report.get(name, {})
    print(f"  {name:<7} {section.get('status', '-'):<8} {section.get('duration_ms', 0):8.1f} ms")
PY

step "#15: doctor wall time (seconds), empty caches then warm"
python3 - "$B/bevenv" "$OUT" <<'PY'
import os, statistics, subprocess, sys, tempfile, time
bevenv, out = sys.argv[1], sys.argv[2]
def timed(args, env):
    start = time.perf_counter()
    code = subprocess.run(args, env=env, cwd=out, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - start, code
def drop_page_cache():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False
def row(name, args, runs, fresh):
    times, codes = [], set()
    warm_home = tempfile.mkdtemp()
    dropped = False
    if not fresh:
        timed(args, dict(os.environ, XDG_CACHE_HOME=warm_home))  # fills the cache, not timed
    for _ in range(runs):
        if fresh:
            dropped = drop_page_cache()
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp() if fresh else warm_home)
        seconds, code = timed(args, env)
        times.append(seconds)
        codes.add(code)
    print(f"{name:<40} median {statistics.median(times):.3f} min {min(times):.3f} "
          f"max {max(times):.3f} exit {sorted(codes)}" + (" (page cache dropped)" if dropped else ""))
skip = [bevenv, "doctor", "--skip", "nccl"]
row("doctor --skip nccl, empty cache", skip, 5, True)
row("doctor --skip nccl, warm", skip, 7, False)
row("doctor (with nccl), empty cache", [bevenv, "doctor"], 3, True)
row("doctor (with nccl), warm", [bevenv, "doctor"], 7, False)
row("doctor --skip nccl --import-torch, empty", skip + ["--import-torch"], 3, True)
row("python3 -m torch.utils.collect_env", ["python3", "-m", "torch.utils.collect_env"], 3, False)
PY
