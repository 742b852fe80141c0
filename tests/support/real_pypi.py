"""What the Python test drivers that run against the real https://pypi.org share: the opt-in
(BEVENV_TEST_REAL_PYPI=1), pyenv's interpreter, the reasons to skip (ctest reads exit 77 as
skipped) and the work folder a run keeps with --keep.
"""
import argparse
import glob
import os
import tempfile
import urllib.request

SKIP = 77


def find_python(version="3.8"):
    """pyenv's newest interpreter of `version`, or None."""
    found = sorted(glob.glob(f"/root/.pyenv/versions/{version}.*/bin/python"))
    return found[-1] if found else None


def skip_reason(python):
    """Why the driver cannot run here (then it exits SKIP), or None: not opted in, no interpreter
    (`python` is None) or PyPI out of reach; checked in that order, the cheapest first."""
    if os.environ.get("BEVENV_TEST_REAL_PYPI") != "1":
        return "set BEVENV_TEST_REAL_PYPI=1 to run it against https://pypi.org"
    if python is None:
        return "no Python 3.8 under /root/.pyenv/versions (pyenv install 3.8)"
    try:
        urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=20).close()
    except OSError as error:
        return f"https://pypi.org is not reachable ({error})"
    return None


def argument_parser():
    """The drivers' common command line: the bevenv binary and --keep DIR; each adds its own."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bevenv")
    parser.add_argument("--keep", default=None)
    return parser


def start(name, keep, reason):
    """The folder the run `name` writes into (--keep's, else a fresh temporary one), or None
    after saying why it is skipped when there is a `reason` to."""
    if reason:
        print(f"{name}: skipped: {reason}")
        return None
    work = keep or tempfile.mkdtemp(prefix=f"bevenv-{name}.")
    os.makedirs(work, exist_ok=True)
    return work
