#!/usr/bin/env bash
# Opt-in (BEVENV_TEST_REAL_PYPI=1): `bevenv lock` of a small real requirement set against
# https://pypi.org/simple. Every artifact's URL and sha256 are checked against PyPI's own
# PEP 691 page (fetched here, independently of bevenv), the exported requirements install with
# `pip install --require-hashes` into a fresh venv, and pip installs exactly the locked versions.
set -euo pipefail
bevenv=${1:?usage: real_pypi.sh BEVENV}
if [[ "${BEVENV_TEST_REAL_PYPI:-}" != 1 ]]; then
  echo "real-pypi: skipped: set BEVENV_TEST_REAL_PYPI=1 to lock against https://pypi.org/simple"
  exit 77
fi
index=${BEVENV_TEST_PYPI_URL:-https://pypi.org/simple}
work=$(mktemp -d /tmp/bevenv-real-pypi.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
export PIP_CONFIG_FILE=/dev/null

python_version=$(python3 -c 'import platform; print(platform.python_version())')
# requests and its uncurated dependencies pinned (idna is curated: the matrix picks it, PyPI
# gives its file and hash), attrs by a range and iniconfig by name only (read from metadata).
requires=(requests==2.31.0 urllib3==2.0.7 charset-normalizer==3.3.2 certifi==2023.11.17
  "attrs>=23.1,<23.3" iniconfig)
args=()
for r in "${requires[@]}"; do args+=(--require "$r"); done

start=$(date +%s.%N)
# `-v` adds what reading the index cost: PyPI publishes no PEP 658 files here, so METADATA comes
# from byte ranges of the wheels, and no wheel is downloaded whole.
"$bevenv" -v lock "${args[@]}" --python "$python_version" --index-url "$index" \
  -o "$work/bevenv.lock" | tee "$work/cold.out"
grep -q " 0 archive(s) downloaded whole" "$work/cold.out"
echo "real-pypi: cold lock took $(python3 -c "import time; print(f'{time.time() - $start:.1f}')") s"

python3 - "$work/bevenv.lock" "$index" "${requires[@]}" <<'PY'
import json, sys, tomllib, urllib.request
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

lock_path, index, requires = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3:]
lock = tomllib.load(open(lock_path, "rb"))
packages = {canonicalize_name(p["name"]): p for p in lock.get("package", [])}
for text in requires:
    r = Requirement(text)
    name = canonicalize_name(r.name)
    assert name in packages, f"{name} is missing from the lock"
    assert r.specifier.contains(packages[name]["version"], True), (text, packages[name]["version"])
for name, p in packages.items():
    artifacts = p.get("artifact", p.get("artifacts", []))
    assert len(artifacts) == 1, (name, artifacts)
    a = artifacts[0]
    request = urllib.request.Request(f"{index}/{name}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    page = json.load(urllib.request.urlopen(request, timeout=60))
    published = {f["filename"]: f for f in page["files"]}
    assert a["filename"] in published, f"{a['filename']} is not on {index}/{name}/"
    f = published[a["filename"]]
    assert a["url"] == f["url"].split("#")[0], (a["url"], f["url"])
    assert a["sha256"] == f["hashes"]["sha256"], (name, a["sha256"], f["hashes"])
    assert a.get("size") == f.get("size", a.get("size")), (name, a.get("size"), f.get("size"))
print(f"real-pypi: {len(packages)} packages; every URL and sha256 matches PyPI's page")
PY

"$bevenv" export --format requirements --lockfile "$work/bevenv.lock" -o "$work/requirements.txt"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps \
  --index-url "$index" -r "$work/requirements.txt"
"$work/venv/bin/pip" check
python3 - "$work/bevenv.lock" "$work/venv/bin/python" <<'PY'
import json, subprocess, sys, tomllib
from packaging.utils import canonicalize_name
lock = tomllib.load(open(sys.argv[1], "rb"))
listed = json.loads(subprocess.run([sys.argv[2], "-m", "pip", "list", "--format", "json",
                                    "--disable-pip-version-check"], capture_output=True,
                                   text=True, check=True).stdout)
installed = {canonicalize_name(p["name"]): p["version"] for p in listed}
for p in lock["package"]:
    name = canonicalize_name(p["name"])
    assert installed.get(name) == p["version"], (name, installed.get(name), p["version"])
print(f"real-pypi: pip install --require-hashes installed the {len(lock['package'])} locked "
      "versions; pip check passes")
PY

start=$(date +%s.%N)
"$bevenv" -v lock "${args[@]}" --python "$python_version" --index-url "$index" \
  -o "$work/warm.lock" | tee "$work/warm.out"
grep -q "METADATA of 0 wheel(s) read by byte ranges" "$work/warm.out"
echo "real-pypi: warm lock took $(python3 -c "import time; print(f'{time.time() - $start:.1f}')") s"
cmp "$work/bevenv.lock" "$work/warm.lock"
echo "real-pypi: the warm re-lock is identical"
