#!/usr/bin/env bash
# Unpacks Debian's ParaView (pvpython, with ParaView's own XDMF3 readers, which the PyPI VTK
# wheel lacks) into .deps/paraview for the test that opens Foehn's outputs with it
# (realtools.paraview_outputs). It is unpacked, not installed: installing Debian's paraview
# removes libvtk9-dev and python3-vtk9, which Foehn builds against. The packages are those
# `apt-get install paraview` would add, fetched with `apt-get download` and unpacked with
# `dpkg -x`; pvpython runs from there (tests/real_tools/with_paraview.sh). Called by
# scripts/run-tests.sh; safe to run again (it unpacks again only when Debian's ParaView
# version changes). Where the packages cannot be had it says so, and the test skips (exit 77).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=.deps/paraview
candidate() { apt-cache policy paraview 2>/dev/null | awk '/Candidate:/{print $2}'; }
version=$(candidate)
if [[ -z $version || $version == "(none)" ]] && [[ $(id -u) -eq 0 ]]; then
  # A machine whose package lists were never fetched (setup.sh fetches them only when it
  # installs something).
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || true
  version=$(candidate)
fi
if [[ -z $version || $version == "(none)" ]]; then
  echo "setup-paraview: Debian offers no paraview package here: realtools.paraview_outputs will be skipped" >&2
  exit 0
fi
if [[ -f $target/.installed && $(cat "$target/.installed") == "$version" ]]; then
  exit 0
fi
rm -rf "$target"
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
# The packages an install would add (its removals, libvtk9-dev among them, are what this avoids).
mapfile -t packages < <(apt-get install -s paraview 2>/dev/null | awk '/^Inst /{print $2}')
echo "setup-paraview: unpacking paraview $version and ${#packages[@]} packages it needs into $target"
if ! (cd "$download" && apt-get download "${packages[@]}" >download.log 2>&1); then
  tail -n 3 "$download/download.log" >&2
  echo "setup-paraview: could not download Debian's paraview: realtools.paraview_outputs will be skipped" >&2
  exit 0
fi
mkdir -p "$target/root"
for deb in "$download"/*.deb; do dpkg -x "$deb" "$target/root"; done
if ! bash tests/real_tools/with_paraview.sh "$target" --version-check; then
  rm -rf "$target"
  echo "setup-paraview: the unpacked pvpython does not run: realtools.paraview_outputs will be skipped" >&2
  exit 0
fi
echo "$version" >"$target/.installed"
echo "setup-paraview: ready (paraview $version)"
