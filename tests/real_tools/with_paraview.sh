#!/usr/bin/env bash
# Runs a script with the pvpython that scripts/setup-paraview.sh unpacked (Debian's ParaView,
# not installed: its libraries and Python modules found through LD_LIBRARY_PATH and PYTHONPATH,
# rendering off screen). Exit 77 (ctest: skipped) where it is not there.
# usage: with_paraview.sh PARAVIEW_DIR SCRIPT ARGS...  |  with_paraview.sh PARAVIEW_DIR --version-check
set -euo pipefail
root=$1/root
shift
if [[ ! -x $root/usr/bin/pvpython ]]; then
  echo "ParaView: no pvpython under $root (scripts/setup-paraview.sh could not unpack it): skipped"
  exit 77
fi
lib=$root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib:$(ls -d "$lib"/paraview-* | head -n 1)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$root/usr/lib/python3/dist-packages PYTHONDONTWRITEBYTECODE=1
if [[ ${1:-} == --version-check ]]; then
  check=$(mktemp --suffix=.py)
  trap 'rm -f "$check"' EXIT
  echo 'import paraview.simple; from paraview import servermanager; print("pvpython", servermanager.vtkSMProxyManager.GetParaViewSourceVersion())' >"$check"
  "$root/usr/bin/pvpython" --force-offscreen-rendering "$check"
  exit
fi
exec "$root/usr/bin/pvpython" --force-offscreen-rendering "$@"
