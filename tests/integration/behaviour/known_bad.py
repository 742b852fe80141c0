#!/usr/bin/env python3
"""Known-bad rules, tested for real: each case builds two virtual environments from real PyPI
wheels, one with the rule's bad pins and one with its fixed pins, runs a short snippet that
takes the real failing code path in both, and checks that

  1. the bad venv fails with the error text the rule and the catalogue know, and the good one
     runs clean;
  2. `bevenv doctor --log` on the captured error text names the expected id (a failure of
     matrix/data/failures.toml, or the rule itself where the catalogue has no entry for the
     text) and the rule among its `rules`;
  3. `bevenv doctor --python VENV --skip host,driver,nvml,kernel,nccl` reports the check the
     case names as a problem or warning in the bad venv and not in the good one, where the
     Python probe has a check for it;
  4. every rule of the table is in the embedded matrix (`bevenv --json matrix rules`), so
     removing a rule fails this test.

`controls` are the same code path with pins the rule also covers but that do not fail here (the
bad pin does not bite on that Python, or a later release of the caller works around it): they
must run clean, so the day one of them starts failing, the table learns it.

Wheels are cached in WORK/wheels (sdists built there once, with setuptools 58 and
`--no-build-isolation`), so only the first run needs the network; a venv is rebuilt only when its
interpreter or package list changes. Interpreters come from pyenv
($PYENV_ROOT/versions/X.Y.*, default /root/.pyenv); a missing one skips the test (exit 77), and so
does a missing wheel when PyPI cannot be reached.

usage: known_bad.py BEVENV WORK [--only CASE] [--fresh] [-v]
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

SKIP = 77
PYENV = os.environ.get("PYENV_ROOT", "/root/.pyenv")
DOCTOR_SKIP = "host,driver,nvml,kernel,nccl"

# One row per known-bad rule whose effect runs on a CPU-only machine.
#   rules      rule ids that must be in the embedded matrix; the first is the one doctor --log
#              must list for the captured text
#   doctor_id  the id `bevenv doctor --log` must name for the bad run's error text
#   python     the interpreter (X.Y) both venvs use
#   bad, good  pins: the failing and the fixed environment
#   error      the line the bad run must print (and the good one must not)
#   snippet    the real code path, run as a script in the venv
#   check      `bevenv doctor --python` check id that must be a problem/warning in the bad venv
#              and absent or ok in the good one (None: the probe has no check that sees it)
#   metadata   {name: version} dist-info written into both venvs (no code) for doctor's
#              `applies` gate, where the real package is too big to install for a test
#   controls   [(python, pins, why)]: the same snippet must run clean with these
CASES = [
    {
        "name": "numba-numpy",
        "rules": ["numba-048-numpy-dtype"],
        "doctor_id": "numba-numpy",
        "python": "3.7",
        "bad": ["numba==0.48.0", "llvmlite==0.31.0", "numpy==1.20.3"],
        "good": ["numba==0.48.0", "llvmlite==0.31.0", "numpy==1.19.5"],
        "error": "TypeError: expected dtype object, got 'numpy.dtype[bool_]'",
        # numba hands a new array back to Python through NRT_adapt_ndarray_to_python, whose
        # PyArray_DescrCheck was compiled against a numpy <1.16.6 (an exact type test) in the
        # cp36/cp37 wheels; numpy 1.20's dtypes are subclasses (numpy/numpy#17914).
        "snippet": """\
import numba
import numpy as np


@numba.njit
def positive(points):
    return points > 0  # a new boolean array, handed back to Python


print(positive(np.arange(4)))
""",
        "check": "known-bad",
        "controls": [
            ("3.8", ["numba==0.48.0", "llvmlite==0.31.0", "numpy==1.20.3"],
             "numba 0.48's cp38 wheel was built against a numpy with the subclass-aware "
             "PyArray_DescrCheck, so Python 3.8 is not bitten"),
        ],
    },
    {
        "name": "yapf-verify",
        "rules": ["yapf-verify-keyword-mmcv", "yapf-verify-keyword"],
        "doctor_id": "F3",
        "python": "3.8",
        # The ops-free mmcv 1.x has mmcv-full's Config (mmcv/utils/config.py) without the CUDA
        # build; its sdist builds without torch.
        "bad": ["mmcv==1.7.1", "yapf==0.40.2", "opencv-python==4.8.1.78", "numpy==1.24.4"],
        "good": ["mmcv==1.7.1", "yapf==0.40.1", "opencv-python==4.8.1.78", "numpy==1.24.4"],
        "error": "TypeError: FormatCode() got an unexpected keyword argument 'verify'",
        # what tools/train.py does with every config: load it and dump it to the work dir
        "snippet": """\
import os
import tempfile

from mmcv import Config

work = tempfile.mkdtemp()
source = os.path.join(work, "bevfusion.py")
with open(source, "w") as f:
    f.write("model = dict(type='BEVFusion', encoders=dict(camera=dict(backbone=dict("
            "type='SwinTransformer', depths=[2, 2, 6, 2]))))\\n"
            "optimizer = dict(type='AdamW', lr=2e-4)\\n")
cfg = Config.fromfile(source)
cfg.dump(os.path.join(work, "dumped.py"))
print(open(os.path.join(work, "dumped.py")).read())
""",
        "check": "F3",
        "controls": [
            ("3.8", ["mmcv==1.7.2", "yapf==0.40.2", "opencv-python==4.8.1.78", "numpy==1.24.4"],
             "mmcv 1.7.2's Config.pretty_text leaves out `verify` for yapf >=0.40.2"),
        ],
    },
    {
        "name": "networkx-gcd",
        "rules": ["networkx-fractions-gcd"],
        # failures.toml has no entry for this text (trimesh-networkx is the `.node` error of
        # the networkx that replaces 2.2): the rule itself names it
        "doctor_id": "networkx-fractions-gcd",
        "python": "3.9",
        "bad": ["networkx==2.2", "decorator==4.4.2"],
        "good_python": "3.8",
        "good": ["networkx==2.2", "decorator==4.4.2"],
        "error": "ImportError: cannot import name 'gcd' from 'fractions'",
        "snippet": """\
import networkx

graph = networkx.DiGraph([("lidar", "fusion"), ("camera", "fusion")])
print(networkx.__version__, sorted(networkx.topological_sort(graph)))
""",
        "check": "known-bad",
    },
    {
        "name": "protobuf-descriptors",
        "rules": ["protobuf-descriptors-old-tensorboard"],
        "doctor_id": "protobuf-descriptors",
        "python": "3.8",
        "bad": ["tensorboard==2.8.0", "protobuf==4.21.0", "numpy==1.24.4"],
        "good": ["tensorboard==2.8.0", "protobuf==3.20.3", "numpy==1.24.4"],
        "error": "TypeError: Descriptors cannot not be created directly.",
        # the event writer torch.utils.tensorboard.SummaryWriter writes through
        "snippet": """\
import tempfile
import time

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

writer = EventFileWriter(tempfile.mkdtemp())
value = summary_pb2.Summary.Value(tag="loss", simple_value=0.5)
writer.add_event(event_pb2.Event(wall_time=time.time(), step=1,
                                 summary=summary_pb2.Summary(value=[value])))
writer.close()
print("event written")
""",
        "check": "known-bad",
    },
    {
        "name": "pillow-antialias",
        "rules": ["pillow-antialias-tensorboardx", "pillow-antialias-tensorboard"],
        "doctor_id": "pillow-antialias",
        "python": "3.8",
        # The tensorboard package itself never names ANTIALIAS (2.8.0 and 2.11.2 checked);
        # the image summaries that do are torch.utils.tensorboard's make_image in torch <1.13
        # (pytorch/pytorch#85679) and tensorboardX <2.6, the same code. tensorboardX 2.5.1 runs
        # it without a torch; tensorboard beside it is what the rule's `when` names.
        "bad": ["tensorboardX==2.5.1", "tensorboard==2.8.0", "protobuf==3.20.1",
                "pillow==10.0.1", "numpy==1.24.4"],
        "good": ["tensorboardX==2.5.1", "tensorboard==2.8.0", "protobuf==3.20.1",
                 "pillow==9.5.0", "numpy==1.24.4"],
        "error": "AttributeError: module 'PIL.Image' has no attribute 'ANTIALIAS'",
        "snippet": """\
import tempfile

import numpy as np
from tensorboardX import SummaryWriter

writer = SummaryWriter(tempfile.mkdtemp())
writer.add_image("camera/front", np.zeros((3, 16, 16), dtype=np.uint8), 0)
writer.close()
print("image written")
""",
        # a `prefer` rule: doctor's known-bad check judges `conflicts` and `requires` only, and
        # the Python probe has no ANTIALIAS check
        "check": None,
    },
    {
        "name": "setuptools-distutils",
        "rules": ["setuptools-distutils-version"],
        "doctor_id": "F2",
        "python": "3.8",
        "bad": ["setuptools==59.6.0"],
        "good": ["setuptools==58.0.4"],
        "error": "AttributeError: module 'distutils' has no attribute 'version'",
        # torch 1.9/1.10 torch/utils/tensorboard/__init__.py, lines 1-4 (pytorch/pytorch#69894)
        # (less its first line, `import tensorboard`)
        "snippet": """\
from setuptools import distutils

LooseVersion = distutils.version.LooseVersion
print(LooseVersion("2.8.0") >= LooseVersion("1.15"))
""",
        "check": "F2",
        # F2 applies only beside torch <1.11 (failures.toml `applies`); torch 1.10.2's wheel is
        # 880 MB, so doctor sees its metadata only. The failing access above needs no torch.
        "metadata": {"torch": "1.10.2"},
    },
]


class Skip(Exception):
    pass


def log(verbose, text):
    if verbose:
        print("  " + text, flush=True)


def interpreter(version):
    found = sorted(glob.glob(os.path.join(PYENV, "versions", version + ".*", "bin",
                                          "python" + version)),
                   key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("/versions/")[1])
                                  [:3]])
    if not found:
        raise Skip(f"no Python {version} under {PYENV}/versions (pyenv install {version})")
    return found[-1]


def pypi_reachable():
    try:
        urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=20).close()
        return True
    except OSError:
        return False


def run(command, verbose, **kw):
    log(verbose, "+ " + " ".join(command))
    return subprocess.run(command, text=True, capture_output=True, **kw)


def pip_env():
    env = dict(os.environ)
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONDONTWRITEBYTECODE="1")
    for key in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_REQUIRE_VIRTUALENV", "VIRTUAL_ENV",
                "PYTHONPATH", "PYTHONHOME"):
        env.pop(key, None)
    return env


def builder(work, version, verbose):
    """A venv per Python with old setuptools, for the sdists (mmcv 1.x, networkx 2.2)."""
    dir_ = os.path.join(work, "builders", version)
    marker = os.path.join(dir_, ".ready")
    if not os.path.exists(marker):
        shutil.rmtree(dir_, ignore_errors=True)
        done = run([interpreter(version), "-m", "venv", dir_], verbose)
        if done.returncode != 0:
            raise RuntimeError(f"venv {dir_}: {done.stderr}")
        install(dir_, ["setuptools==58.0.4", "wheel==0.37.1"], work, verbose, build=False)
        open(marker, "w").close()
    return dir_


def install(venv, pins, work, verbose, build=True, version=None):
    wheels = os.path.join(work, "wheels")
    os.makedirs(wheels, exist_ok=True)
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip"]
    offline = pip + ["install", "-q", "--no-index", "--find-links", wheels, *pins]
    done = run(offline, verbose, env=pip_env())
    if done.returncode == 0:
        return
    if not pypi_reachable():
        raise Skip(f"wheels for {' '.join(pins)} are not in {wheels} and https://pypi.org "
                   "cannot be reached")
    if build:
        tool = os.path.join(builder(work, version, verbose), "bin", "python")
        fetch = [tool, "-m", "pip", "wheel", "-q", "--no-build-isolation", "-w", wheels, *pins]
    else:
        fetch = pip + ["download", "-q", "-d", wheels, *pins]
    got = run(fetch, verbose, env=pip_env())
    if got.returncode != 0:
        raise RuntimeError(f"fetching {' '.join(pins)}:\n{got.stdout}{got.stderr}")
    done = run(offline, verbose, env=pip_env())
    if done.returncode != 0:
        raise RuntimeError(f"installing {' '.join(pins)} into {venv}:\n{done.stdout}{done.stderr}")


def write_metadata(venv, metadata):
    site = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          text=True, capture_output=True, check=True).stdout.strip()
    for name, version in metadata.items():
        info = os.path.join(site, f"{name}-{version}.dist-info")
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        with open(os.path.join(info, "INSTALLER"), "w") as f:
            f.write("bevenv-test (metadata only)\n")
        open(os.path.join(info, "RECORD"), "w").close()


def make_venv(work, name, version, pins, metadata, fresh, verbose):
    dir_ = os.path.join(work, "venvs", name)
    python = interpreter(version)
    want = json.dumps({"python": python, "pins": pins, "metadata": metadata or {}})
    marker = os.path.join(dir_, ".packages")
    if not fresh and os.path.exists(marker) and open(marker).read() == want:
        return dir_
    shutil.rmtree(dir_, ignore_errors=True)
    done = run([python, "-m", "venv", dir_], verbose)
    if done.returncode != 0:
        raise RuntimeError(f"venv {dir_}: {done.stderr}")
    install(dir_, pins, work, verbose, version=version)
    if metadata:
        write_metadata(dir_, metadata)
    with open(marker, "w") as f:
        f.write(want)
    return dir_


def run_snippet(venv, case, tag):
    script = os.path.join(venv, f"{case['name']}.py")
    with open(script, "w") as f:
        f.write(case["snippet"])
    env = pip_env()
    env["PYTHONWARNINGS"] = "ignore"
    return subprocess.run([os.path.join(venv, "bin", "python"), script], text=True,
                          capture_output=True, cwd=venv, env=env, timeout=300)


def error_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_.]*(Error|Exception)\b", line):
            return line.strip()
    return lines[-1].strip() if lines else "(no output)"


def doctor_log(bevenv, path):
    done = subprocess.run([bevenv, "--json", "doctor", "--log", path], text=True,
                          capture_output=True, timeout=60)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"doctor --log {path}: exit {done.returncode}\n{done.stderr}")
    return done.returncode, json.loads(done.stdout)


def doctor_python(bevenv, venv):
    done = subprocess.run([bevenv, "--json", "doctor", "--python",
                           os.path.join(venv, "bin", "python"), "--skip", DOCTOR_SKIP],
                          text=True, capture_output=True, timeout=120)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"doctor --python {venv}: exit {done.returncode}\n"
                           f"{done.stdout}{done.stderr}")
    return json.loads(done.stdout)["checks"]


def flagged(checks, check_id, rules):
    """The checks of `check_id` that are a problem or warning and concern this case."""
    out = []
    for check in checks:
        if check.get("id") != check_id or check.get("severity") not in ("problem", "warning"):
            continue
        if check_id == "known-bad":
            text = json.dumps(check)
            if not any(f"`{rule}`" in text or f'"{rule}"' in text for rule in rules):
                continue
        out.append(check)
    return out


def matrix_rules(bevenv):
    done = subprocess.run([bevenv, "--json", "matrix", "rules"], text=True,
                          capture_output=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"bevenv matrix rules: exit {done.returncode}\n{done.stderr}")
    return {rule["id"]: rule for rule in json.loads(done.stdout)["rules"]}


def check_case(case, bevenv, work, args, shipped):
    problems = []
    name = case["name"]
    for rule in case["rules"]:
        if rule not in shipped:
            problems.append(f"rule `{rule}` is not in the embedded matrix")
    metadata = case.get("metadata")
    bad_py, good_py = case["python"], case.get("good_python", case["python"])
    bad = make_venv(work, name + "-bad", bad_py, case["bad"], metadata, args.fresh, args.verbose)
    good = make_venv(work, name + "-good", good_py, case["good"], metadata, args.fresh,
                     args.verbose)

    failed = run_snippet(bad, case, "bad")
    text = failed.stdout + failed.stderr
    seen = error_line(text)
    if failed.returncode == 0:
        problems.append(f"bad ({' '.join(case['bad'])}, Python {bad_py}) ran clean:\n{text}")
    elif case["error"] not in text:
        problems.append(f"bad run failed with another error: `{seen}`, expected "
                        f"`{case['error']}`\n{text}")
    log_path = os.path.join(work, "logs", f"{name}.bad.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "w") as f:
        f.write(text)

    rc, report = doctor_log(bevenv, log_path)
    ids = [m["id"] for m in report["matches"]]
    named = ",".join(ids) or "nothing"
    if rc != 1 or case["doctor_id"] not in ids:
        problems.append(f"doctor --log {log_path} named {named} (exit {rc}), expected "
                        f"{case['doctor_id']}")
    else:
        match = next(m for m in report["matches"] if m["id"] == case["doctor_id"])
        if case["rules"][0] not in match.get("rules", []):
            problems.append(f"doctor --log: {case['doctor_id']} lists rules {match.get('rules')},"
                            f" not `{case['rules'][0]}`")

    passed = run_snippet(good, case, "good")
    good_text = passed.stdout + passed.stderr
    if passed.returncode != 0 or case["error"] in good_text:
        problems.append(f"good ({' '.join(case['good'])}, Python {good_py}) failed "
                        f"(exit {passed.returncode}):\n{good_text}")

    probe = "no probe check"
    if case.get("check"):
        check_id = case["check"]
        in_bad = flagged(doctor_python(bevenv, bad), check_id, case["rules"])
        in_good = flagged(doctor_python(bevenv, good), check_id, case["rules"])
        if not in_bad:
            problems.append(f"doctor --python {bad}: no `{check_id}` problem or warning "
                            f"for {case['rules']}")
        if in_good:
            problems.append(f"doctor --python {good}: `{check_id}` still flagged: "
                            f"{in_good[0].get('title')}")
        severity = in_bad[0]["severity"] if in_bad else "nothing"
        probe = f"doctor --python {check_id} {severity}/{'ok' if not in_good else 'flagged'}"

    controls = []
    for i, (version, pins, why) in enumerate(case.get("controls", [])):
        venv = make_venv(work, f"{name}-control{i}", version, pins, None, args.fresh,
                         args.verbose)
        done = run_snippet(venv, case, "control")
        if done.returncode != 0:
            problems.append(f"control {' '.join(pins)} on Python {version} failed "
                            f"(the table says: {why}):\n{done.stdout}{done.stderr}")
        verdict = ""
        if case.get("check"):
            # information, not a failure: the rules may still flag a venv that runs clean
            still = flagged(doctor_python(bevenv, venv), case["check"], case["rules"])
            verdict = f", doctor --python {case['check']} {still[0]['severity'] if still else 'ok'}"
        controls.append(f"{' '.join(pins)} py{version} "
                        f"{'ok' if done.returncode == 0 else 'FAILED'}{verdict}")

    line = (f"{name}: bad {' '.join(case['bad'])} py{bad_py} → exit {failed.returncode} "
            f"`{seen}` → doctor --log {named}; good {' '.join(case['good'])} py{good_py} → "
            f"{'ok' if passed.returncode == 0 else 'exit ' + str(passed.returncode)}; {probe}")
    if controls:
        line += "; controls: " + ", ".join(controls)
    return line, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bevenv")
    parser.add_argument("work")
    parser.add_argument("--only", action="append", help="run only this case (repeatable)")
    parser.add_argument("--fresh", action="store_true", help="rebuild every venv")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    bevenv, work = os.path.abspath(args.bevenv), os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    cases = [c for c in CASES if not args.only or c["name"] in args.only]
    started = time.monotonic()
    try:
        for version in sorted({c["python"] for c in cases} | {c.get("good_python", c["python"])
                                                              for c in cases}):
            interpreter(version)
        shipped = matrix_rules(bevenv)
        failures = 0
        for case in cases:
            t0 = time.monotonic()
            line, problems = check_case(case, bevenv, work, args, shipped)
            print(f"{'ok  ' if not problems else 'FAIL'} {line} ({time.monotonic() - t0:.0f} s)",
                  flush=True)
            for problem in problems:
                print("     " + problem.replace("\n", "\n     "), flush=True)
            failures += bool(problems)
    except Skip as reason:
        print(f"SKIP: {reason}", flush=True)
        return SKIP
    print(f"{len(cases) - failures}/{len(cases)} cases ok in {time.monotonic() - started:.0f} s",
          flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
