#!/usr/bin/env bash
# Acceptance: `bevenv lock` of the smoke profile against pypiserver on loopback carries URL,
# sha256 and size for every artifact; the exported requirements install with
# `pip install --require-hashes` into a fresh venv from that index; an --offline re-lock from
# the warm cache writes the same file.
set -euo pipefail
bevenv=${1:?usage: lock_smoke.sh BEVENV WHEEL_DIR}
wheels=${2:?usage: lock_smoke.sh BEVENV WHEEL_DIR}
work=$(mktemp -d /tmp/bevenv-lock-smoke.XXXXXX)
export XDG_CACHE_HOME=$work/cache
export PIP_CONFIG_FILE=/dev/null

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m pypiserver run -i 127.0.0.1 -p "$port" --disable-fallback -a . -P . "$wheels" \
  >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
index="http://127.0.0.1:$port/simple/"
for _ in $(seq 100); do
  curl -fs "$index" >/dev/null 2>&1 && break
  sleep 0.1
done

python_version=$(python3 -c 'import platform; print(platform.python_version())')
# The `smoke` profile when the matrix has it; its packages as requirements otherwise.
what=(--profile smoke)
if ! "$bevenv" matrix show smoke >/dev/null 2>&1 && ! "$bevenv" lock --profile smoke --python "$python_version" \
    --index-url "$index" -o "$work/probe.lock" >/dev/null 2>&1; then
  echo "lock-smoke: the smoke profile does not lock against this index; using its packages"
  what=(--require "yapf==0.40.1" --require "setuptools==58.0.4" --require "six" --require "requests")
fi
"$bevenv" lock "${what[@]}" --python "$python_version" --index-url "$index" -o "$work/bevenv.lock"

python3 - "$work/bevenv.lock" <<'PY'
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
packages = lock.get("package", [])
assert packages, "the lock has no packages"
for p in packages:
    artifacts = p.get("artifact", p.get("artifacts", []))
    assert artifacts, f"{p['name']} has no artifact"
    for a in artifacts:
        assert a.get("url") and len(a.get("sha256", "")) == 64 and a.get("size"), (p["name"], a)
print(f"lock-smoke: {len(packages)} packages, every artifact has url, sha256 and size")
PY

"$bevenv" export --format requirements --lockfile "$work/bevenv.lock" -o "$work/requirements.txt"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --require-hashes \
  --index-url "$index" -r "$work/requirements.txt"
echo "lock-smoke: pip install --require-hashes succeeded"

cp "$work/bevenv.lock" "$work/first.lock"
kill $server
"$bevenv" lock "${what[@]}" --python "$python_version" --index-url "$index" --offline \
  -o "$work/bevenv.lock"
cmp "$work/first.lock" "$work/bevenv.lock"
echo "lock-smoke: --offline re-lock from the cache is identical"
