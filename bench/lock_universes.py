#!/usr/bin/env python3
"""Lock time of bevenv against pip, pip-tools and uv on generated universes of deep conflict
chains (bench/universes.py: chain_universe), measured in one run with the tools interleaved,
so that a busy machine slows every tool alike. Prints times and ratios.

Usage: lock_universes.py BEVENV [--sizes 1k,10k,100k] [--kinds conflict,free] [--runs N]
                          [--timeout S] [--work DIR]

Kinds: `conflict` caps `hub` at a third of its versions, so greedy choices fail deep in every
chain; `free` caps it at the newest version (same universe shape, no conflict).

Per universe (written once under --work, reused while its parameters are unchanged):
  bevenv matrix      `bevenv --matrix OVERLAY lock --require ...` (all records from TOML)
  bevenv load only   `bevenv --matrix OVERLAY matrix check` (loading and checking the overlay)
  bevenv fl cold     `bevenv lock --no-index --find-links WHEELS` with an empty XDG_CACHE_HOME
  bevenv fl warm     the same with the cache of an earlier run
  uv cold / warm     `uv pip compile --no-index --find-links WHEELS` with an empty / a reused
                     --cache-dir
  pip                `pip install --dry-run --ignore-installed --no-index --find-links WHEELS`
  pip-compile        `pip-compile --no-index --find-links WHEELS` (pip's resolver; cold cache)
A run past --timeout is stopped and shown as `> S`; its ratio is then a lower bound (`>`).
Every answer is also checked: each tool that finished must report the same `hub` version a
correct resolver can reach (the universe has a solution; `unsat` marks a tool that said none).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import universes  # noqa: E402

# name: (chains, depth, versions); chains * depth * versions + versions package versions.
SIZES = {"1k": (4, 10, 24), "10k": (10, 20, 49), "100k": (20, 50, 99)}


def prepare(work, label, kind):
    """Writes the universe once per size (both kinds share it: only the roots differ)."""
    chains, depth, versions = SIZES[label]
    root = os.path.join(work, f"{label}-{chains}x{depth}x{versions}")
    cap = versions if kind == "free" else None
    packages, roots = universes.chain_universe(chains, depth, versions, cap)
    if not os.path.exists(os.path.join(root, "done")):
        shutil.rmtree(root, ignore_errors=True)
        universes.write_overlay(os.path.join(root, "overlay"), packages)
        universes.write_find_links(os.path.join(root, "wheels"), packages)
        open(os.path.join(root, "done"), "w").close()
    with open(os.path.join(root, f"requirements-{kind}.in"), "w", encoding="utf-8") as f:
        f.write("".join(f"{name}{spec}\n" for name, spec in roots))
    return root, len(packages), [f"{name}{spec}" for name, spec in roots]


def uv_interpreter():
    python = universes.python_38()
    return ["--python", python] if python else []


def timed(command, timeout, env=None, cwd=None):
    """(seconds, completed process or None on timeout)."""
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, None
    return time.perf_counter() - start, done


def hub_of(text, pattern):
    found = re.search(pattern, text, re.MULTILINE)
    return found.group(1) if found else "?"


class Tools:
    def __init__(self, bevenv, root, kind, roots, scratch):
        self.bevenv, self.root, self.roots, self.scratch = bevenv, root, roots, scratch
        self.overlay = os.path.join(root, "overlay")
        self.wheels = os.path.join(root, "wheels")
        self.req_in = os.path.join(root, f"requirements-{kind}.in")
        self.warm_bevenv = tempfile.mkdtemp(dir=scratch, prefix="bevenv-warm-")
        self.warm_uv = tempfile.mkdtemp(dir=scratch, prefix="uv-warm-")

    def env(self, cache):
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = cache
        return env

    def requires(self):
        return [arg for r in self.roots for arg in ("--require", r)]

    def bevenv_lock(self, global_args, lock_args, env, timeout):
        out = os.path.join(self.scratch, "bench.lock")
        if os.path.exists(out):
            os.remove(out)
        command = [self.bevenv, "-q", *global_args, "lock", *lock_args, *self.requires(), "-o",
                   out]
        seconds, done = timed(command, timeout, env, self.scratch)
        if done is None:
            return seconds, None
        if done.returncode != 0:
            return seconds, "unsat" if done.returncode == 1 else f"error {done.returncode}"
        with open(out, encoding="utf-8") as f:
            return seconds, hub_of(f.read(), r'^name = "hub"\nversion = "([^"]+)"')

    def run(self, tool, timeout):
        fresh = tempfile.mkdtemp(dir=self.scratch, prefix="cold-")
        try:
            return self._run(tool, timeout, fresh)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    def _run(self, tool, timeout, fresh):
        if tool == "bevenv matrix":
            return self.bevenv_lock(["--matrix", self.overlay], [], self.env(fresh), timeout)
        if tool == "bevenv load only":
            seconds, done = timed([self.bevenv, "-q", "--matrix", self.overlay, "matrix",
                                   "check"], timeout, self.env(fresh), self.scratch)
            ok = done is not None and done.returncode == 0
            return seconds, "-" if ok else (None if done is None else f"error {done.returncode}")
        find_links = ["--no-index", "--find-links", self.wheels]
        if tool == "bevenv fl cold":
            return self.bevenv_lock([], find_links, self.env(fresh), timeout)
        if tool == "bevenv fl warm":
            return self.bevenv_lock([], find_links, self.env(self.warm_bevenv), timeout)
        out = os.path.join(fresh, "out.txt")
        if tool in ("uv cold", "uv warm"):
            cache = fresh if tool == "uv cold" else self.warm_uv
            # uv needs an interpreter for the target; without one it downloads a CPython per
            # run (seconds), which this row must not time.
            seconds, done = timed(["uv", "pip", "compile", "--quiet", "--no-index",
                                   "--find-links", self.wheels, "--cache-dir", cache,
                                   *uv_interpreter(), "--python-version", "3.8",
                                   "--no-header", "-o", out, self.req_in], timeout,
                                  env=dict(os.environ, UV_PYTHON_DOWNLOADS="never"))
            pattern = r"^hub==(\S+)"
        elif tool == "pip":
            seconds, done = timed([sys.executable, "-m", "pip", "install", "--dry-run",
                                   "--ignore-installed", "--no-index", "--find-links",
                                   self.wheels, "--quiet", "--disable-pip-version-check",
                                   "--isolated", "--cache-dir", fresh, "--report", out,
                                   "-r", self.req_in], timeout)
            pattern = r'"name": "hub",\s*"version": "([^"]+)"'
        elif tool == "pip-compile":
            seconds, done = timed(["pip-compile", "--quiet", "--no-index", "--find-links",
                                   self.wheels, "--cache-dir", fresh, "--no-header",
                                   "--output-file", out, self.req_in], timeout)
            pattern = r"^hub==(\S+)"
        else:
            raise ValueError(tool)
        if done is None:
            return seconds, None
        if done.returncode != 0:
            impossible = "ResolutionImpossible" in done.stderr or "No solution" in done.stderr
            return seconds, "unsat" if impossible else f"error {done.returncode}"
        with open(out, encoding="utf-8") as f:
            return seconds, hub_of(f.read(), pattern)


FAST = ["bevenv matrix", "bevenv load only", "bevenv fl cold", "bevenv fl warm", "uv cold",
        "uv warm"]
SLOW = ["pip", "pip-compile"]


def fmt(seconds, timed_out):
    text = f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"
    return ("> " + text) if timed_out else text


def bench_size(bevenv, work, label, kind, runs, timeout):
    root, count, roots = prepare(work, label, kind)
    scratch = tempfile.mkdtemp(prefix="bevenv-bench-")
    tools = Tools(bevenv, root, kind, roots, scratch)
    times = {t: [] for t in FAST + SLOW}
    answers = {t: set() for t in FAST + SLOW}
    timed_out = set()
    # Warm caches first (not counted), then interleave: one run of every tool per round. uv's
    # warm-up is a cold run: when it times out, both uv rows do (their cost is resolution).
    tools.run("bevenv fl warm", timeout)
    seconds, answer = tools.run("uv warm", timeout)
    if answer is None:
        for tool in ("uv cold", "uv warm"):
            times[tool].append(seconds)
            timed_out.add(tool)
    skipped = set()
    for round_index in range(runs):
        for tool in FAST + (SLOW if round_index == 0 else []):
            if tool in timed_out:
                continue
            if tool == "pip-compile" and "pip" in timed_out:
                skipped.add(tool)  # the same resolver as pip: it would time out too
                continue
            seconds, answer = tools.run(tool, timeout)
            times[tool].append(seconds)
            if answer is None:
                timed_out.add(tool)
            else:
                answers[tool].add(answer)
    shutil.rmtree(scratch, ignore_errors=True)
    median = {t: statistics.median(v) for t, v in times.items() if v}
    print(f"\n{kind} {label}: {count} package versions ({'x'.join(map(str, SIZES[label]))} chains x "
          f"depth x versions + hub), roots {' '.join(roots)}; median of {runs} "
          f"(pip, pip-compile: 1 run, timeout {timeout:.0f} s)")
    base = median["bevenv matrix"]
    print(f"  {'tool':<18} {'time':>12} {'answer (hub)':>14} {'tool / bevenv matrix':>22}")
    for tool in FAST + SLOW:
        if tool in skipped:
            print(f"  {tool:<18} {'not run':>12}   (pip's resolver; pip timed out)")
        if tool not in median:
            continue
        t = median[tool]
        ratio = ("> " if tool in timed_out else "") + f"{t / base:.2f}x"
        answer = "timeout" if tool in timed_out and not answers[tool] else \
            ",".join(sorted(answers[tool]))
        print(f"  {tool:<18} {fmt(t, tool in timed_out):>12} {answer:>14} {ratio:>22}")
    cold = median["bevenv fl cold"]
    warm = median["bevenv fl warm"]
    for peer, against in (("uv cold", cold), ("uv warm", warm), ("pip", cold),
                          ("pip-compile", cold)):
        if peer in median:
            sign = "> " if peer in timed_out else ""
            print(f"  find-links: {peer} / bevenv fl {'warm' if 'warm' in peer else 'cold'} = "
                  f"{sign}{median[peer] / against:.2f}x")
    return median, timed_out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bevenv")
    parser.add_argument("--sizes", default="1k,10k,100k")
    parser.add_argument("--kinds", default="conflict,free",
                        help="conflict: deep conflict chains; free: the same without conflict")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "bevenv-bench"))
    args = parser.parse_args()
    bevenv = os.path.abspath(args.bevenv)
    for tool in ("uv", "pip-compile"):
        if shutil.which(tool) is None:
            print(f"`{tool}` not found: run scripts/setup.sh", file=sys.stderr)
            return 2
    for kind in args.kinds.split(","):
        for label in args.sizes.split(","):
            bench_size(bevenv, args.work, label, kind, args.runs, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
