#!/usr/bin/env python3
"""Wall time of `bevenv lock` for every shipped profile, offline from the embedded matrix, and a
byte-identity check across runs. Two ways, alternating run by run: a relock over the lockfile
the previous run wrote (what a user who runs it again pays: the old pins are read as
preferences, and the unchanged file is not written again), and a fresh lock with no lockfile
(written, with its fsync). The profiles take turns, one run of each per round, so that a burst
of load from elsewhere on the host is spread over them all rather than landing on one profile's
runs. Usage: bench/lock_profiles.py PATH/TO/bevenv [RUNS]"""
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


def timed_lock(bevenv: str, profile: str, work: str, output: str) -> tuple[float, str]:
    """Milliseconds of one lock and the sha256 of the lockfile it leaves."""
    start = time.perf_counter()
    subprocess.run([bevenv, "-q", "lock", "--profile", profile, *TARGET, "-o", output], cwd=work,
                   check=True)
    elapsed = (time.perf_counter() - start) * 1000
    return elapsed, hashlib.sha256(Path(work, output).read_bytes()).hexdigest()


def main() -> int:
    bevenv = str(Path(sys.argv[1]).resolve())
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    names = profiles(bevenv)
    times = {name: {"relock": [], "fresh": []} for name in names}
    digests = {name: set() for name in names}
    with tempfile.TemporaryDirectory() as work:
        for name in names:  # the lockfiles relocks replace
            timed_lock(bevenv, name, work, f"{name}.relock.lock")
        for _ in range(runs):
            for name in names:
                for way in ("relock", "fresh"):
                    Path(work, f"{name}.fresh.lock").unlink(missing_ok=True)
                    elapsed, digest = timed_lock(bevenv, name, work, f"{name}.{way}.lock")
                    times[name][way].append(elapsed)
                    digests[name].add(digest)
    worst = {"relock": 0.0, "fresh": 0.0}
    print(f"{'profile':<18} {'relock median':>14} {'max':>7} {'fresh median':>13} {'max':>7}"
          f"  identical  ({runs} runs each)")
    for name in names:
        medians = {way: statistics.median(t) for way, t in times[name].items()}
        for way in worst:
            worst[way] = max(worst[way], medians[way])
        print(f"{name:<18} {medians['relock']:>14.1f} {max(times[name]['relock']):>7.1f} "
              f"{medians['fresh']:>13.1f} {max(times[name]['fresh']):>7.1f}  "
              f"{'yes' if len(digests[name]) == 1 else 'NO'}")
    print(f"slowest median: relock {worst['relock']:.1f} ms, fresh {worst['fresh']:.1f} ms "
          "(target: under 20 ms)")
    return 0 if all(len(d) == 1 for d in digests.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
