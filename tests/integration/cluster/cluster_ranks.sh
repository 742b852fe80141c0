#!/usr/bin/env bash
# bevenv-probe --rank on one GPU-less machine: several real processes rendezvous over TCP,
# rank 0 aggregates. The all-reduce is replaced by the test hooks' stand-ins (or skipped), so
# what is tested is the rendezvous, the timeouts and the aggregation, with real sockets,
# real hostnames (unshare --uts) and, where permitted, real network namespaces.
# usage: cluster_ranks.sh PATH/TO/bevenv-probe
set -u
PROBE=$1
WORK=$(mktemp -d /tmp/bevenv-cluster.XXXXXX)
FAILURES=0
PIDS=()
NETNS_MADE=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for ns in "${NETNS_MADE[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
export BEVENV_PROBE_TEST_HOOKS=1
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT OMPI_COMM_WORLD_RANK SLURM_PROCID PMI_RANK

fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
pass() { echo "ok: $*"; }
now() { date +%s.%N; }
port() { python3 "$(dirname "$0")/../../support/free_port_pair.py"; }

# check NAME FILE PYTHON-EXPRESSION: the expression sees the aggregate as `d`.
check() {
  local name=$1 file=$2 expr=$3
  if python3 - "$file" "$expr" <<'PY'; then pass "$name"; else fail "$name"; fi
import json, sys
d = json.load(open(sys.argv[1]))
try:
    ok = eval(sys.argv[2])
except (KeyError, IndexError, TypeError) as error:
    print(f"{type(error).__name__}: {error}")
    ok = False
if not ok:
    d.pop("node_reports", None)
    print(json.dumps(d, indent=1)[:3000])
sys.exit(0 if ok else 1)
PY
}

# start NAME ENV... -- ARGS...: one rank in the background, stdout/stderr/rc into $WORK/NAME.*
start() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  ( env "${envs[@]}" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; echo $? >"$WORK/$name.rc" ) &
  PIDS+=($!)
}
wait_all() { wait; PIDS=(); }
# As one host named $1: its own UTS namespace, so gethostname() differs like on a real node.
AS_HOST=$WORK/as_host.sh
cat >"$AS_HOST" <<'SH'
#!/bin/sh
host=$1
shift
exec unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
SH
chmod +x "$AS_HOST"

torch_env() { echo "RANK=$1 WORLD_SIZE=$2 LOCAL_RANK=$3 MASTER_ADDR=${4:-127.0.0.1} MASTER_PORT=$5"; }

# --- 1. rendezvous and aggregation, four ranks, no collective ---------------------------------
P=$(port)
for r in 1 2 3; do start r$r $(torch_env $r 4 $r 127.0.0.1 $P) -- "$PROBE" --rank --no-collective --rank-timeout 10 --lock-hash sha256:same; done
start r0 $(torch_env 0 4 0 127.0.0.1 $P) -- "$PROBE" --rank --no-collective --rank-timeout 10 --lock-hash sha256:same
wait_all
check "four ranks rendezvous and report" "$WORK/r0.out" \
  'd["status"]=="ok" and d["ranks_reported"]==4 and d["missing_ranks"]==[] and d["collective"]["status"]=="skipped" and [r["state"] for r in d["ranks"]]==["reported"]*4 and d["rendezvous_port"]=='$((P + 1))
[ "$(cat "$WORK/r0.rc")" = 0 ] && pass "rank 0 exits 0 when all agree" || fail "rank 0 exit $(cat "$WORK/r0.rc")"
for r in 1 2 3; do
  [ ! -s "$WORK/r$r.out" ] && grep -q "report delivered to rank 0" "$WORK/r$r.err" && [ "$(cat "$WORK/r$r.rc")" = 0 ] \
    && pass "rank $r prints nothing on stdout and one status line" || fail "rank $r output: $(cat "$WORK/r$r.out" "$WORK/r$r.err")"
done

# --- 2. a missing rank is named within the timeout --------------------------------------------
P=$(port); T=3
t0=$(now)
start m1 $(torch_env 1 3 1 127.0.0.1 $P) -- "$PROBE" --rank --no-collective --rank-timeout $T
start m0 $(torch_env 0 3 0 127.0.0.1 $P) -- "$PROBE" --rank --no-collective --rank-timeout $T
wait_all
elapsed=$(python3 -c "print($(now) - $t0)")
check "rank 2 named as missing" "$WORK/m0.out" \
  'd["status"]=="problem" and d["missing_ranks"]==[2] and any("rank 2 never reached rank 0" in p for p in d["problems"]) and d["ranks"][2]["state"]=="missing"'
python3 -c "import sys; sys.exit(0 if $elapsed < 3 * $T + 5 else 1)" && pass "missing rank reported after ${elapsed}s (timeout ${T}s)" || fail "missing rank took ${elapsed}s"
[ "$(cat "$WORK/m0.rc")" = 1 ] && pass "rank 0 exits 1 with a missing rank" || fail "rank 0 exit $(cat "$WORK/m0.rc")"

# --- 3. nodes with a different lock hash and package version are flagged ----------------------
if "$AS_HOST" probe-test true 2>/dev/null; then
  P=$(port)
  for node in A B; do
    python3 -m venv --without-pip "$WORK/venv$node" >/dev/null
    site=$("$WORK/venv$node/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    version=$([ $node = A ] && echo 1.0.0 || echo 1.1.0)
    mkdir -p "$site/bevenv_demo-$version.dist-info"
    printf 'Metadata-Version: 2.1\nName: bevenv-demo\nVersion: %s\n' $version >"$site/bevenv_demo-$version.dist-info/METADATA"
    printf 'schema = 1\ninput_hash = "sha256:%s"\n' $([ $node = A ] && echo aaaa || echo bbbb) >"$WORK/lock$node"
  done
  common=(--rank --no-collective --rank-timeout 20 --timeout 60)
  start d1 $(torch_env 1 4 1 127.0.0.1 $P) -- "$AS_HOST" nodeA "$PROBE" "${common[@]}" --lockfile "$WORK/lockA" --python "$WORK/venvA"
  start d2 $(torch_env 2 4 0 127.0.0.1 $P) -- "$AS_HOST" nodeB "$PROBE" "${common[@]}" --lockfile "$WORK/lockB" --python "$WORK/venvB"
  start d3 $(torch_env 3 4 1 127.0.0.1 $P) -- "$AS_HOST" nodeB "$PROBE" "${common[@]}" --lockfile "$WORK/lockB" --python "$WORK/venvB"
  start d0 $(torch_env 0 4 0 127.0.0.1 $P) -- "$AS_HOST" nodeA "$PROBE" "${common[@]}" --lockfile "$WORK/lockA" --python "$WORK/venvA"
  wait_all
  check "two nodes side by side" "$WORK/d0.out" \
    '[n["host"] for n in d["nodes"]]==["nodeA","nodeB"] and [n["ranks"] for n in d["nodes"]]==[[0,1],[2,3]] and d["nodes"][1]["lock_hash"]=="sha256:bbbb"'
  check "the lock hash difference is a problem naming both nodes" "$WORK/d0.out" \
    'any(x["fact"]=="lock_hash" and x["severity"]=="problem" and sorted((v["value"],v["hosts"]) for v in x["values"])==[("sha256:aaaa",["nodeA"]),("sha256:bbbb",["nodeB"])] for x in d["differences"]) and any("`lock_hash` differs" in p for p in d["problems"])'
  check "the package version difference is flagged" "$WORK/d0.out" \
    'any(x["fact"]=="package:bevenv-demo" and {v["value"] for v in x["values"]}=={"1.0.0","1.1.0"} for x in d["differences"])'
  check "the Python probe ran once per node" "$WORK/d0.out" \
    'sorted(k for k in d["node_reports"])==["nodeA","nodeB"] and all("python" in r for r in d["node_reports"].values())'
else
  echo "skip: unshare --uts not permitted; node differences not tested"
fi

# --- 4. a hung collective is killed and named; a slow rank is named --------------------------
P=$(port); T=3
t0=$(now)
start h1 $(torch_env 1 3 1 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout $T --selftest-collective hang
start h2 $(torch_env 2 3 2 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout $T --selftest-collective ok:100
start h0 $(torch_env 0 3 0 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout $T --selftest-collective ok:100
wait_all
elapsed=$(python3 -c "print($(now) - $t0)")
check "the hung rank's all-reduce is a timeout" "$WORK/h0.out" \
  'd["collective"]["status"]=="failed" and [(f["rank"],f["status"]) for f in d["collective"]["failed_ranks"]]==[(1,"timeout")] and d["ranks_reported"]==3'
python3 -c "import sys; sys.exit(0 if $elapsed < 4 * $T + 5 else 1)" && pass "hung collective bounded: ${elapsed}s" || fail "hung collective took ${elapsed}s"

P=$(port)
start s1 $(torch_env 1 3 1 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout 10 --selftest-collective ok:100
start s2 $(torch_env 2 3 2 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout 10 --selftest-collective ok:20
start s0 $(torch_env 0 3 0 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout 10 --selftest-collective ok:100 --min-busbw 50
wait_all
check "the slow rank is named, the all-reduce counted correct" "$WORK/s0.out" \
  '[s["rank"] for s in d["collective"]["slow_ranks"]]==[2] and d["collective"]["correct"] and d["collective"]["results"][0]["busbw_gbps"]==20 and any("rank 2" in p and "slow" in p for p in d["problems"])'

# --- 5. a rank that dies after its hello is named as lost --------------------------------------
P=$(port)
start l1 $(torch_env 1 2 1 127.0.0.1 $P) -- "$PROBE" --rank --no-collective --rank-timeout 5 --selftest-exit-after-hello
start l0 $(torch_env 0 2 0 127.0.0.1 $P) -- "$PROBE" --rank --no-collective --rank-timeout 5
wait_all
check "a rank that died is lost, not missing" "$WORK/l0.out" 'd["lost_ranks"]==[1] and d["missing_ranks"]==[] and d["status"]=="problem"'

# --- 6. an unreachable master is named within the timeout --------------------------------------
P=$(port); T=2
t0=$(now)
start u1 $(torch_env 1 2 1 127.0.0.1 $P) -- "$PROBE" --rank --rank-timeout $T
wait_all
elapsed=$(python3 -c "print($(now) - $t0)")
grep -q "cannot reach rank 0 at 127.0.0.1:$((P + 1)) within $T s" "$WORK/u1.err" && [ "$(cat "$WORK/u1.rc")" = 1 ] \
  && pass "unreachable master named" || fail "unreachable master: $(cat "$WORK/u1.err")"
python3 -c "import sys; sys.exit(0 if $elapsed < $T + 4 else 1)" && pass "gave up after ${elapsed}s" || fail "took ${elapsed}s"

# --- 7. Slurm and Open MPI variables ----------------------------------------------------------
P=$(port)
slurm() { echo "SLURM_PROCID=$1 SLURM_NTASKS=2 SLURM_LOCALID=$1 SLURM_STEP_NODELIST=localhost,gpu[01-03] SLURM_JOB_NODELIST=ignored[1-2] MASTER_PORT=$P"; }
start sl1 $(slurm 1) -- "$PROBE" --rank --no-collective --rank-timeout 10
start sl0 $(slurm 0) -- "$PROBE" --rank --no-collective --rank-timeout 10
wait_all
check "srun: master is the first host of SLURM_STEP_NODELIST" "$WORK/sl0.out" \
  'd["launcher"]=="slurm" and d["master"]=="localhost:'$P'" and d["ranks_reported"]==2'
P=$(port)
ompi() { echo "OMPI_COMM_WORLD_RANK=$1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$1"; }
start o1 $(ompi 1) -- "$PROBE" --rank --no-collective --rank-timeout 10 --master 127.0.0.1:$P
start o0 $(ompi 0) -- "$PROBE" --rank --no-collective --rank-timeout 10 --master 127.0.0.1:$P
wait_all
check "mpirun: ranks from OMPI_COMM_WORLD_*, master from --master" "$WORK/o0.out" \
  'd["launcher"]=="openmpi" and d["ranks_reported"]==2 and d["status"]=="ok"'
env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "$PROBE" --rank 2>"$WORK/nomaster.err"; rc=$?
[ $rc = 2 ] && grep -q "no master" "$WORK/nomaster.err" && pass "no master: usage error naming MASTER_ADDR" || fail "no master: rc $rc $(cat "$WORK/nomaster.err")"

# --- 8. separate network namespaces as separate hosts ------------------------------------------
if ip netns add bevenv-ns0-$$ 2>/dev/null; then
  NETNS_MADE+=(bevenv-ns0-$$)
  ip netns add bevenv-ns1-$$ && NETNS_MADE+=(bevenv-ns1-$$)
  ip link add bvA$$ type veth peer name bvB$$
  ip link set bvA$$ netns bevenv-ns0-$$ && ip link set bvB$$ netns bevenv-ns1-$$
  ip -n bevenv-ns0-$$ addr add 10.231.0.1/24 dev bvA$$ && ip -n bevenv-ns0-$$ link set bvA$$ up
  ip -n bevenv-ns1-$$ addr add 10.231.0.2/24 dev bvB$$ && ip -n bevenv-ns1-$$ link set bvB$$ up
  ip -n bevenv-ns0-$$ link set lo up; ip -n bevenv-ns1-$$ link set lo up
  P=$(port)
  start n1 $(torch_env 1 2 0 10.231.0.1 $P) -- ip netns exec bevenv-ns1-$$ "$AS_HOST" netB "$PROBE" --rank --no-collective --rank-timeout 10
  start n0 $(torch_env 0 2 0 10.231.0.1 $P) -- ip netns exec bevenv-ns0-$$ "$AS_HOST" netA "$PROBE" --rank --no-collective --rank-timeout 10
  wait_all
  check "ranks in two network namespaces meet over a veth link" "$WORK/n0.out" \
    'd["status"]=="ok" and [n["host"] for n in d["nodes"]]==["netA","netB"] and d["ranks"][1]["address"]=="10.231.0.2"'
  # rank 1 told a master address nobody answers on: named, bounded.
  P=$(port)
  start n2 $(torch_env 1 2 0 10.231.0.9 $P) -- ip netns exec bevenv-ns1-$$ "$PROBE" --rank --rank-timeout 2
  start n3 $(torch_env 0 2 0 10.231.0.1 $P) -- ip netns exec bevenv-ns0-$$ "$PROBE" --rank --no-collective --rank-timeout 2
  wait_all
  grep -q "cannot reach rank 0 at 10.231.0.9" "$WORK/n2.err" && pass "unreachable master in another namespace named" || fail "netns unreachable: $(cat "$WORK/n2.err")"
  check "rank 0 names the rank that went elsewhere" "$WORK/n3.out" 'd["missing_ranks"]==[1]'
else
  echo "skip: ip netns add not permitted; network namespace tests not run"
fi

echo "cluster rank tests: $FAILURES failure(s)"
[ $FAILURES = 0 ]
