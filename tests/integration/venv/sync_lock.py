#!/usr/bin/env python3
"""`bevenv sync` and `bevenv export --format pylock` for real, on a PyPI-hosted profile:

1. lock the profile offline;
2. `bevenv sync` creates a Python 3.8 venv from nothing and installs the lock, hash-checked;
3. the venv drifts (one package upgraded, one extra installed, one uninstalled) and
   `bevenv sync --dry-run` names each change (exit 1), `bevenv sync` puts it back (exit 0);
4. `bevenv doctor` then reports no drift;
5. the exported `pylock.toml` installs into a fresh venv with `uv pip install -r pylock.toml`
   (a reader no one here wrote), and `pip list` of both venvs is the same;
6. `bevenv sync --installer uv` gives the same venv again.

Network (PyPI) and a few MB. Exit 77 unless BEVENV_TEST_REAL_PYPI=1, or when pyenv's Python 3.8,
uv or PyPI is missing.

usage: sync_lock.py BEVENV [--profile smoke] [--keep DIR]
"""

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "support"))
import real_pypi  # noqa: E402  (tests/support/real_pypi.py: opt-in, interpreter, skip, work dir)


def run(command, **kw):
    print("+ " + " ".join(command), flush=True)
    started = time.monotonic()
    done = subprocess.run(command, text=True, capture_output=True, **kw)
    print(f"  exit {done.returncode} in {time.monotonic() - started:.1f} s", flush=True)
    return done


def skip_reason():
    reason = real_pypi.skip_reason(real_pypi.find_python())
    if reason is None and shutil.which("uv") is None:
        reason = "no `uv` on PATH (the pylock.toml reader)"
    return reason


def pip_list(venv):
    done = run([os.path.join(venv, "bin", "python"), "-m", "pip", "list", "--format", "json",
                "--disable-pip-version-check"])
    return sorted((d["name"].lower().replace("_", "-"), d["version"])
                  for d in json.loads(done.stdout))


class Case:
    def __init__(self, bevenv, work, profile):
        self.bevenv, self.work, self.profile = bevenv, work, profile
        self.lock = os.path.join(work, f"{profile}.lock")
        self.problems = []

    def expect(self, condition, text):
        print(("  ok: " if condition else "  FAILED: ") + text, flush=True)
        if not condition:
            self.problems.append(text)

    def bevenv_json(self, *args):
        done = run([self.bevenv, "--json", *args])
        try:
            return done.returncode, json.loads(done.stdout)
        except json.JSONDecodeError:
            self.problems.append(f"`bevenv {' '.join(args)}` printed no JSON: {done.stderr}")
            return done.returncode, {}

    def sync(self, venv, *extra):
        return self.bevenv_json("sync", "--venv", venv, "--lockfile", self.lock, *extra)

    def locked_set(self):
        lock = tomllib.load(open(self.lock, "rb"))
        return sorted((p["name"].lower().replace("_", "-"), p["version"]) for p in lock["package"])

    def expect_lock_installed(self, venv, what):
        installed = [p for p in pip_list(venv) if p[0] != "pip"]
        self.expect(installed == self.locked_set(), f"{what}: pip list is the lock (plus pip)")
        return installed


def sync_from_nothing(case, venv):
    code, out = case.sync(venv)
    case.expect(code == 0 and out.get("created") and out.get("in_sync"),
                f"sync created `{venv}` and reports it in sync (exit {code})")
    hashed = out.get("installed", {}).get("hashed")
    print(f"  installed {hashed} hash-checked pins; plan: {len(out['plan']['changes'])} changes")
    case.expect_lock_installed(venv, "after the first sync")
    code, out = case.sync(venv, "--dry-run")
    case.expect(code == 0 and out.get("in_sync"), f"a second dry run finds nothing (exit {code})")


def drift_and_back(case, venv):
    python = os.path.join(venv, "bin", "python")
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    run(pip + ["install", "--no-deps", "packaging==24.0"])  # upgraded past the lock
    run(pip + ["install", "--no-deps", "attrs==23.1.0"])    # an extra the lock does not name
    run(pip + ["uninstall", "-y", "idna"])                  # a locked package gone
    code, out = case.sync(venv, "--dry-run")
    kinds = sorted((c["kind"], c["name"]) for c in out.get("plan", {}).get("changes", []))
    print(f"  dry-run plan: {kinds}")
    case.expect(code == 1, f"the dry run of a drifted venv exits 1 (exit {code})")
    case.expect(kinds == [("downgrade", "packaging"), ("install", "idna"), ("remove", "attrs")],
                "the plan names the downgrade, the install and the removal")
    code, out = case.sync(venv)
    case.expect(code == 0 and out.get("in_sync"), f"sync put the venv back (exit {code})")
    case.expect_lock_installed(venv, "after syncing the drift back")
    code, report = case.bevenv_json("doctor", "--python", python, "--lockfile", case.lock,
                                    "--skip", "host,driver,nvml,kernel,nccl")
    drift = [c for c in report.get("checks", []) if c.get("id") == "drift"]
    case.expect(bool(drift) and all(c["severity"] == "ok" for c in drift),
                f"doctor reports no drift: {[c.get('title') for c in drift]}")


def pylock_with_uv(case, synced):
    pylock = os.path.join(case.work, "pylock.toml")
    done = run([case.bevenv, "export", "--format", "pylock", "--lockfile", case.lock, "-o", pylock])
    case.expect(done.returncode == 0, f"export --format pylock (exit {done.returncode})")
    fresh = os.path.join(case.work, "uv-venv")
    run([real_pypi.find_python(), "-m", "venv", fresh])
    done = run(["uv", "pip", "install", "--python", os.path.join(fresh, "bin", "python"),
                "-r", pylock])
    print(done.stderr[-1500:])
    case.expect(done.returncode == 0, "uv pip install -r pylock.toml")
    case.expect(pip_list(fresh) == pip_list(synced), "pip list of the uv venv equals sync's")
    with_uv = os.path.join(case.work, "sync-uv-venv")
    code, out = case.sync(with_uv, "--installer", "uv")
    case.expect(code == 0 and out.get("in_sync"), f"sync --installer uv (exit {code})")
    case.expect(pip_list(with_uv) == pip_list(synced), "pip list of sync --installer uv is the same")


def main():
    parser = real_pypi.argument_parser()
    parser.add_argument("--profile", default="smoke")
    args = parser.parse_args()
    work = real_pypi.start("sync-lock", args.keep, skip_reason())
    if work is None:
        return real_pypi.SKIP
    case = Case(os.path.abspath(args.bevenv), work, args.profile)
    done = run([case.bevenv, "lock", "--profile", args.profile, "--offline", "-o", case.lock])
    if done.returncode != 0:
        print(f"lock failed: {done.stdout}{done.stderr}")
        return 1
    venv = os.path.join(work, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    sync_from_nothing(case, venv)
    drift_and_back(case, venv)
    pylock_with_uv(case, venv)
    print(f"{args.profile}: {'PASS' if not case.problems else 'FAIL'} (work dir {work})")
    if not case.problems and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    for p in case.problems:
        print(f"  {p}")
    return 1 if case.problems else 0


if __name__ == "__main__":
    sys.exit(main())
