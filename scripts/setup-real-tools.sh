#!/usr/bin/env bash
# Installs the tools Foehn's users run (MUSICA's MICM, scikit-fem, NCAR's cfchecker, the IOOS
# compliance-checker; versions in
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
# cfchecker would fetch the CF standard name table from cfconventions.org: it is given the
# copy the IOOS compliance-checker carries (tests/real_tools/cf_checker.py).
if ! versions=$("$venv/bin/python" -c 'import musica, skfem, cfchecker, compliance_checker, netCDF4, scipy
print("musica", musica.__version__, "scikit-fem", skfem.__version__, "cfchecker",
      cfchecker.__version__, "compliance-checker", compliance_checker.__version__)'); then
  rm -rf "$venv"
  echo "setup-real-tools: the installed tools do not import: the real-tool tests will be skipped" >&2
  exit 0
fi
echo "$wanted" >"$venv/.installed"
echo "setup-real-tools: ready ($versions)"
