#!/usr/bin/env bash
# Builds libsolv as a static archive from Debian's own source package (Debian ships libsolv as a
# shared library only), for `bevenv` and the single-file `bevenv-static`. apt checks the source
# files against the signed Sources index; the build uses the core options of Debian's package
# (MULTI_SEMANTICS, COMPLEX_DEPS), so the system's libsolv headers describe it. Prints the path
# of libsolv.a; a second run with the archive present does nothing.
# usage: static_libsolv.sh [--cached] [WORK_DIR]  (default: ${XDG_CACHE_HOME:-~/.cache}/bevenv-build)
#   --cached: print the archive's path when it is built already, else exit 1; fetch nothing.
set -euo pipefail
cached_only=0
if [ "${1:-}" = "--cached" ]; then
  cached_only=1
  shift
fi
work=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/bevenv-build}
version=$(dpkg-query -W -f='${source:Version}' libsolv-dev 2>/dev/null) || {
  echo "static_libsolv: libsolv-dev is not installed (scripts/setup.sh installs it)" >&2
  exit 2
}
upstream=${version%%-*}
archive=$work/libsolv-$version/build/src/libsolv.a
if [ -s "$archive" ]; then
  echo "$archive"
  exit 0
fi
[ "$cached_only" -eq 0 ] || exit 1
mkdir -p "$work/apt/lists/partial" "$work/libsolv-$version"
# deb-src (deb822: the file name must end in .sources) for the suite the system's packages come
# from, in a private apt state: the machine's own sources and lists are left as they are.
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
cat >"$work/apt/bevenv.sources" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_options=(-o "Dir::Etc::SourceList=$work/apt/bevenv.sources" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/apt/lists" -o APT::Sandbox::User=root -qq)
apt-get "${apt_options[@]}" update >&2
cd "$work/libsolv-$version"
apt-get "${apt_options[@]}" source --download-only "libsolv=$version" >&2
rm -rf src
dpkg-source --no-check -x ./*.dsc src >&2 # apt already checked the files against the index
cmake -S src -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DENABLE_STATIC=ON -DDISABLE_SHARED=ON \
  -DMULTI_SEMANTICS=ON -DENABLE_COMPLEX_DEPS=ON -DDEBIAN=ON >&2
cmake --build build --target libsolv >&2
test -s "$archive"
echo "$archive"
