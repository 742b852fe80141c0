#!/usr/bin/env python3
"""`--require requests` against PyPI itself: bevenv lock against uv pip compile, cold and warm,
interleaved in one run, with the bytes each moved over the network.

Usage: pypi_requests.py BEVENV [--runs N] [--index URL] [--python 3.8] [--uv UV]
                        [--uv-python PYTHON]

Rows (median of --runs):
  bevenv cold / warm  `bevenv --json lock --require requests --index-url URL --python X`, with
                      an empty / the previous run's XDG_CACHE_HOME
  uv cold / warm      `uv pip compile - --index-url URL --python PY --python-version X`, with
                      an empty / the previous run's --cache-dir (UV_PYTHON_DOWNLOADS=never)
Bytes: the received bytes of every network interface but `lo` (/proc/net/dev) across the run,
so other traffic on the machine counts too: run it on a quiet machine. bevenv's own count
(`index.bytes_received` of `--json`, bytes after decompression) is printed beside it. The pins
of both tools are compared and differences printed. Exit status 1 when a tool fails.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import universes  # noqa: E402


def received_bytes():
    total = 0
    with open("/proc/net/dev") as f:
        for line in f.readlines()[2:]:
            name, data = line.split(":", 1)
            if name.strip() != "lo":
                total += int(data.split()[0])
    return total


def timed(command, env=None, stdin=None):
    before = received_bytes()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, input=stdin, capture_output=True, text=True,
                          timeout=300)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return seconds, received_bytes() - before, done.stdout


def bevenv_run(binary, cache, work, args):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    lock = os.path.join(work, "requests.lock")
    if os.path.exists(lock):
        os.remove(lock)  # a fresh lock each time, not a re-lock of the last one
    seconds, wire, out = timed([binary, "--json", "lock", "--require", "requests",
                                "--index-url", args.index, "--python", args.python, "-o", lock],
                               env=env)
    counted = json.loads(out)["index"]["bytes_received"]
    pins = {}
    name = None
    for line in open(lock):
        if line.startswith("name = "):
            name = line.split('"')[1]
        elif line.startswith("version = ") and name:
            pins[name] = line.split('"')[1]
            name = None
    return seconds, wire, counted, pins


def uv_run(uv, cache, args):
    # An interpreter of the target's version: without one uv downloads a CPython on every run.
    python = ["--python", args.uv_python] if args.uv_python else []
    seconds, wire, out = timed([uv, "pip", "compile", "-", "--index-url", args.index,
                                *python, "--python-version", args.python, "--cache-dir", cache,
                                "-q", "--no-header", "--no-annotate"], stdin="requests\n",
                               env=dict(os.environ, UV_PYTHON_DOWNLOADS="never"))
    pins = dict(line.strip().split("==", 1) for line in out.splitlines()
                if "==" in line and not line.startswith("#"))
    return seconds, wire, pins


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bevenv")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--index", default="https://pypi.org/simple")
    parser.add_argument("--python", default="3.8")
    parser.add_argument("--uv", default=shutil.which("uv"))
    parser.add_argument("--uv-python", default=universes.python_38(),
                        help="the interpreter uv resolves for (default: pyenv's 3.8)")
    args = parser.parse_args()
    if not args.uv:
        print("pypi_requests: uv not found (--uv PATH)")
        return 1
    binary = os.path.abspath(args.bevenv)
    rows = {k: [] for k in ("bevenv cold", "uv cold", "bevenv warm", "uv warm")}
    wire = {k: [] for k in rows}
    counted = []
    pins = {}
    with tempfile.TemporaryDirectory(prefix="bevenv-bench-requests-") as work:
        for _ in range(args.runs):
            bevenv_cache = tempfile.mkdtemp(dir=work)
            uv_cache = tempfile.mkdtemp(dir=work)
            for kind in ("cold", "warm"):
                s, w, c, pins["bevenv"] = bevenv_run(binary, bevenv_cache, work, args)
                rows[f"bevenv {kind}"].append(s)
                wire[f"bevenv {kind}"].append(w)
                if kind == "cold":
                    counted.append(c)
                s, w, pins["uv"] = uv_run(args.uv, uv_cache, args)
                rows[f"uv {kind}"].append(s)
                wire[f"uv {kind}"].append(w)
    print(f"--require requests, {args.index}, Python {args.python}, {args.runs} runs each")
    print(f"{'row':<12} {'median ms':>10} {'min ms':>8} {'wire kB':>9}")
    for row, times in rows.items():
        print(f"{row:<12} {statistics.median(times) * 1000:>10.0f} {min(times) * 1000:>8.0f} "
              f"{statistics.median(wire[row]) / 1000:>9.0f}")
    for kind in ("cold", "warm"):
        ratio = statistics.median(rows[f"uv {kind}"]) / statistics.median(rows[f"bevenv {kind}"])
        print(f"uv/bevenv {kind}: {ratio:.2f}")
    print(f"bevenv cold, bytes it counted (decompressed): {statistics.median(counted) / 1e6:.2f} MB")
    # Where they differ, the matrix's curated records decide bevenv's pin (idna 3.7): shown, not
    # a failure.
    differ = {n: (pins["bevenv"].get(n), pins["uv"].get(n))
              for n in sorted(set(pins["bevenv"]) | set(pins["uv"]))
              if pins["bevenv"].get(n) != pins["uv"].get(n)}
    print("pins: " + ("the same" if not differ else
                      "differ (bevenv, uv): " + ", ".join(f"{n} {a} {b}" for n, (a, b) in differ.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
