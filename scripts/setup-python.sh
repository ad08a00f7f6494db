#!/usr/bin/env bash
# Makes .deps/python, the virtual environment the Python package `foehn` is built, installed and
# tested in: the PyPI packages of python/requirements.txt (mpi4py's wheel loads the system's
# libmpi, Debian's OpenMPI), then petsc4py built from its PyPI source against the PETSc Foehn
# builds against (its version: petsc4py must match it). Called by scripts/setup.sh with that PETSc's prefix (empty: Debian's
# petsc-dev, for which no petsc4py is built: Debian's 3.18 predates NumPy 2, and the tests that
# need petsc4py then skip). Prints the environment's python as its last line, or an empty line
# where PyPI cannot be reached (the package is then not built and its tests do not run). Safe to
# run again: it rebuilds only when the requirements, the PETSc or the Python change.
#
# Usage: scripts/setup-python.sh PETSC_PREFIX
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
petsc_dir=${1:-}
venv=.deps/python
requirements=python/requirements.txt
python=/usr/bin/python3
[[ -x $python ]] || python=python3
say() { echo "setup-python: $*" >&2; }
petsc_version=
if [[ -n $petsc_dir ]]; then
  petsc_version=$(sed -n 's/^#define PETSC_VERSION_\(MAJOR\|MINOR\|SUBMINOR\) *\([0-9]*\)/\2/p' \
    "$petsc_dir/include/petscversion.h" | paste -sd.)
fi
wanted=$( { sha256sum "$requirements"; "$python" --version; echo "$petsc_dir $petsc_version"; } |
  sha256sum | cut -c1-16)
if [[ -f $venv/.installed && $(cat "$venv/.installed") == "$wanted" ]]; then
  echo "$PWD/$venv/bin/python"
  exit 0
fi
rm -rf "$venv"
mkdir -p .deps
log=.deps/python-setup.log
started=$SECONDS
give_up() {
  rm -rf "$venv"
  tail -n 20 "$log" >&2
  say "$1: the Python package will not be built (full log: $log)"
  echo ""
  exit 0
}
say "installing $(grep -cE '^[a-z]' "$requirements") PyPI packages into $venv"
"$python" -m venv "$venv" >"$log" 2>&1 || give_up "no venv"
pip=("$venv/bin/pip" --disable-pip-version-check --quiet)
"${pip[@]}" install -r "$requirements" >>"$log" 2>&1 || give_up "PyPI packages"
if [[ -n $petsc_dir ]]; then
  say "building petsc4py $petsc_version against $petsc_dir (about 5 minutes on two cores)"
  PETSC_DIR=$petsc_dir "${pip[@]}" install --no-build-isolation "petsc4py==$petsc_version" \
    >>"$log" 2>&1 || give_up "petsc4py $petsc_version"
  "$venv/bin/python" -c "from petsc4py import PETSc" >>"$log" 2>&1 || give_up "petsc4py import"
fi
echo "$wanted" >"$venv/.installed"
say "ready in $((SECONDS - started)) s"
echo "$PWD/$venv/bin/python"
