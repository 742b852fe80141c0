#!/usr/bin/env bash
# The single-file bevenv-static inside a Debian 11 root made by debootstrap (glibc 2.31, no
# libsolv, libarchive, libcurl or toml++): it must start, lock a profile offline to the same bytes
# the host's bevenv writes, explain the lock, export it, and run `doctor --log` on real logs.
# The root is cached as a tarball in WORK (debootstrap takes about a minute); needs root for
# chroot and debootstrap, and Debian's mirror the first time. Exit 77 (skipped) without them.
# usage: debian11.sh BEVENV_STATIC HOST_BEVENV SOURCE_DIR WORK
set -euo pipefail
static=$(realpath "$1") host=$(realpath "$2") source=$(realpath "$3") work=$(realpath -m "$4")
mirror=${BEVENV_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "$(id -u)" -ne 0 ]; then echo "skipped: chroot and debootstrap need root"; exit 77; fi
command -v debootstrap >/dev/null || { echo "skipped: no debootstrap"; exit 77; }
mkdir -p "$work"
rootfs=$work/debian11-minbase.tar
if [ ! -s "$rootfs" ]; then
  scratch=$(mktemp -d "$work/debootstrap.XXXXXX")
  if ! debootstrap --variant=minbase bullseye "$scratch/root" "$mirror" >"$scratch/log" 2>&1; then
    tail -n 20 "$scratch/log"
    rm -rf "$scratch"
    echo "skipped: debootstrap of Debian 11 from $mirror failed"
    exit 77
  fi
  tar --numeric-owner -C "$scratch/root" -cf "$rootfs.partial" .
  mv "$rootfs.partial" "$rootfs"
  rm -rf "$scratch"
fi

root=$(mktemp -d "$work/root.XXXXXX")
trap 'rm -rf "$root"' EXIT
tar -C "$root" -xf "$rootfs"
cp "$static" "$root/usr/local/bin/bevenv"
strip "$root/usr/local/bin/bevenv"
mkdir -p "$root/work"
# Real logs from the corpus (tests/golden/logs): yapf's `verify`, a DataLoader pickling error,
# NCCL in a container with a small /dev/shm.
cp "$source"/tests/golden/logs/{F3.mv2d-8.log,F8.here-h200.log,nccl-shm.nccl-tests-166.log} \
  "$root/work/"

failures=0
check() {  # check WHAT EXPECTED_EXIT COMMAND...
  local what=$1 want=$2
  shift 2
  local got=0
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin NO_COLOR=1 HOME=/root \
    "$@" >"$root/out" 2>&1 || got=$?
  if [ "$got" -eq "$want" ]; then echo "ok   $what"; else
    echo "FAIL $what: exit $got, expected $want"
    sed 's/^/     /' "$root/out" | head -n 20 || true
    failures=$((failures + 1))
  fi
}

# Whole output, then its first line: `| head` could end ldd with SIGPIPE, which pipefail reports.
glibc=$(chroot "$root" /usr/bin/ldd --version)
glibc=${glibc%%$'\n'*}
echo "root: $glibc"
case $glibc in *" 2.31"*) ;; *) echo "FAIL not glibc 2.31"; exit 1 ;; esac
size=$(stat -c %s "$root/usr/local/bin/bevenv")
echo "bevenv-static, stripped: $size bytes"
[ "$size" -lt $((25 * 1024 * 1024)) ] || { echo "FAIL over 25 MB"; failures=$((failures + 1)); }

check "bevenv --version" 0 bevenv --version
lock_args=(lock --profile bevfusion --gpu sm_86 --cuda-driver 12.2)
check "lock bevfusion offline" 0 bevenv "${lock_args[@]}" -o /work/bevfusion.lock
(cd "$work" && "$host" -q "${lock_args[@]}" -o "$work/host-bevfusion.lock")
if cmp -s "$root/work/bevfusion.lock" "$work/host-bevfusion.lock"; then
  echo "ok   the lock is byte-identical to the host bevenv's"
else
  echo "FAIL the lock differs from the host bevenv's"
  diff "$work/host-bevfusion.lock" "$root/work/bevfusion.lock" | head -n 20 || true
  failures=$((failures + 1))
fi
check "why torch" 0 bevenv why torch --lockfile /work/bevfusion.lock
check "export requirements" 0 bevenv export --format requirements --lockfile /work/bevfusion.lock
check "matrix check" 0 bevenv matrix check
for log in "$root"/work/*.log; do
  # Exit 1: the log holds a known failure, which doctor names with its fix.
  check "doctor --log $(basename "$log")" 1 bevenv doctor --log "/work/$(basename "$log")"
done
check "an index is refused with a hint, not a crash" 3 \
  bevenv lock --require requests --index-url http://127.0.0.1:9/simple -o /work/r.lock
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
