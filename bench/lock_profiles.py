#!/usr/bin/env python3
"""Wall time of `bevenv lock` for every shipped profile, offline from the embedded matrix, and a
byte-identity check across runs. Usage: bench/lock_profiles.py PATH/TO/bevenv [RUNS]"""
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# An Ampere GPU whose driver supports CUDA 12.8: every shipped profile, ports included, locks.
TARGET = ["--gpu", "sm_86", "--cuda-driver", "12.8"]


def profiles(bevenv: str) -> list[str]:
    """Every profile the matrix ships, as `bevenv matrix profiles` lists them."""
    done = subprocess.run([bevenv, "--json", "matrix", "profiles"], capture_output=True,
                          text=True, check=True)
    names = [p["name"] for p in json.loads(done.stdout)["profiles"]]
    if not names:
        raise SystemExit("`bevenv matrix profiles` lists no profile")
    return sorted(names)


def main() -> int:
    bevenv = str(Path(sys.argv[1]).resolve())
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    worst = 0.0
    print(f"{'profile':<18} {'median ms':>10} {'max ms':>8}  identical  ({runs} runs each)")
    with tempfile.TemporaryDirectory() as work:
        for profile in profiles(bevenv):
            times, digests = [], set()
            for _ in range(runs):
                start = time.perf_counter()
                subprocess.run([bevenv, "-q", "lock", "--profile", profile, *TARGET, "-o",
                                "bench.lock"], cwd=work, check=True)
                times.append((time.perf_counter() - start) * 1000)
                digests.add(hashlib.sha256(Path(work, "bench.lock").read_bytes()).hexdigest())
            median = statistics.median(times)
            worst = max(worst, median)
            print(f"{profile:<18} {median:>10.1f} {max(times):>8.1f}  {'yes' if len(digests) == 1 else 'NO'}")
            if len(digests) != 1:
                return 1
    print(f"slowest median: {worst:.1f} ms (target: under 20 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
