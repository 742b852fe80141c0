#!/usr/bin/env bash
# Builds a small Debian bookworm root filesystem with python3, python3-venv and python3-dev (headers, for
# compiled builds) as a tarball,
# the stand-in for a CUDA base image in the buildah end-to-end test. The tarball is cached:
# a rerun with the file present does nothing.
# usage: make_base_rootfs.sh OUTPUT_TAR [MIRROR]
set -euo pipefail

output=$1
mirror=${2:-http://deb.debian.org/debian}
if [ -s "$output" ]; then
  exit 0
fi
command -v debootstrap >/dev/null || {
  echo "make_base_rootfs: debootstrap is missing (apt-get install debootstrap)" >&2
  exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/bevenv-rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv,python3-dev bookworm "$work/root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  exit 3
}
# Caches and logs are not part of an image anyone wants; they only make the tarball bigger.
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"* \
  "$work/root/var/log/"*
mkdir -p "$(dirname "$output")"
tar --numeric-owner -C "$work/root" -cf "$output.partial" .
mv "$output.partial" "$output"
