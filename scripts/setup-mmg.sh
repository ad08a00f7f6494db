#!/usr/bin/env bash
# Unpacks Mmg 5.8 (the anisotropic remesher foehn/adapt calls, LGPL) into .deps/mmg-5.8.0 from
# PyPI's mmgpy 0.17.1 wheel, which carries libmmg3d.so and its headers. Only those are taken
# (CMake finds them by FOEHN_MMG_DIR): nothing is installed into any Python. The library needs
# only libstdc++, libm and libc. Called by scripts/setup.sh; safe to run again.
#
# The wheel is fixed by version, platform and sha256, whatever Python runs pip: the same bytes
# on every machine. Where PyPI cannot be reached it says so and leaves nothing: Foehn then
# builds without remeshing (foehn::adapt::remesh reports it unavailable, its tests skip).
# Prints the prefix (or nothing) on its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version=5.8.0
wheel_version=0.17.1
wheel=mmgpy-$wheel_version-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
wheel_sha256=46b0ea94bafa3efe69e793e9b29460420211128a46cecb39dcea449ae8851d31
deps=$PWD/.deps
prefix=$deps/mmg-$version
say() { echo "setup-mmg: $*" >&2; }

if [[ -f $prefix/.unpacked && $(cat "$prefix/.unpacked") == "$wheel_sha256" ]]; then
  echo "$prefix"
  exit 0
fi
if [[ $(uname -m) != x86_64 ]]; then
  say "the mmgpy wheel is built for x86_64 only: Foehn builds without remeshing"
  echo
  exit 0
fi
mkdir -p "$deps/downloads"
if [[ ! -f $deps/downloads/$wheel ]] &&
  ! python3 -m pip download --quiet --no-deps --only-binary :all: --python-version 3.11 \
    --platform manylinux_2_28_x86_64 --dest "$deps/downloads" "mmgpy==$wheel_version" >&2; then
  say "could not download mmgpy==$wheel_version from PyPI: Foehn builds without remeshing"
  echo
  exit 0
fi
if ! echo "$wheel_sha256  $deps/downloads/$wheel" | sha256sum --check --status; then
  say "$deps/downloads/$wheel does not have the expected sha256 $wheel_sha256; removed"
  rm -f "$deps/downloads/$wheel"
  exit 1
fi
rm -rf "$prefix" "$prefix.tmp"
mkdir -p "$prefix.tmp"
python3 - "$deps/downloads/$wheel" "$prefix.tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for member in wheel.namelist():
        if member.startswith(("include/mmg/", "lib64/libmmg3d.so")):
            wheel.extract(member, sys.argv[2])
PY
mv "$prefix.tmp" "$prefix"
echo "$wheel_sha256" >"$prefix/.unpacked"
say "Mmg $version unpacked into $prefix"
echo "$prefix"
