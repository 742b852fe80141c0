#!/bin/sh
# Wall time of `bevenv doctor`: the full run, each probe group alone (`--check`), judging a
# saved report (`--report`: no probe, the judging cost alone), and `--log` on a large log.
# Usage: bench/doctor_time.sh BEVENV [RUNS] [-- extra doctor args, e.g. --python VENV]
# Prints one line per case: median, min and max seconds over RUNS runs (default 5), and the
# probe's own per-section times from the last full run's JSON. Needs python3 for the numbers.
set -eu
bevenv="$1"
shift
runs=5
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  runs="$1"
  shift
fi
[ "${1:-}" = "--" ] && shift
tmp="$(mktemp -d /tmp/bevenv-doctor-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

# Seconds for one run of the command (exit status 1, "problem found", is a normal result).
time_once() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
elapsed = time.perf_counter() - start
if code not in (0, 1):
    sys.exit("exit %d from %s" % (code, " ".join(sys.argv[1:])))
print("%.4f" % elapsed)
PY
}

measure() {
  name="$1"
  shift
  : > "$tmp/times"
  i=0
  while [ "$i" -lt "$runs" ]; do
    time_once "$@" >> "$tmp/times"
    i=$((i + 1))
  done
  python3 - "$name" "$tmp/times" <<'PY'
import statistics, sys
times = [float(line) for line in open(sys.argv[2]) if line.strip()]
print("%-28s median %7.3f s   min %7.3f s   max %7.3f s   (%d runs)"
      % (sys.argv[1], statistics.median(times), min(times), max(times), len(times)))
PY
}

measure "doctor (all probes)" "$bevenv" doctor "$@"
for check in driver kernel nccl shm F2; do
  measure "doctor --check $check" "$bevenv" doctor --check "$check" "$@"
done

"$bevenv" doctor --json -v "$@" > "$tmp/full.json" || true
python3 - "$tmp/full.json" "$tmp/report.json" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
report = out.get("report", {})
json.dump(report, open(sys.argv[2], "w"))
probe = out.get("probe", {})
print("probe run: %.0f ms in all" % probe.get("duration_ms", 0))
for name in ("host", "python", "driver", "nvml", "kernel", "nccl"):
    section = report.get(name)
    if isinstance(section, dict):
        print("  %-7s %-10s %8.1f ms" % (name, section.get("status", "?"), section.get("duration_ms", 0)))
PY
measure "doctor --report (judge only)" "$bevenv" doctor --report "$tmp/report.json"

# A 200 000-line log with a few failures in it.
python3 - "$tmp/train.log" <<'PY'
import sys
with open(sys.argv[1], "w") as log:
    for i in range(200000):
        log.write("2024-05-01 12:00:00 epoch %d iter %d loss %.4f lr 2e-4 memory 18000\n" % (i // 1000, i, 1.0 / (i + 1)))
        if i in (1000, 150000):
            log.write("RuntimeError: DataLoader worker (pid 4141) is killed by signal: Bus error.\n")
PY
measure "doctor --log (200k lines)" "$bevenv" doctor --log "$tmp/train.log"
