#!/usr/bin/env bash
# Runs a check of tests/real_tools with the Python of the real-tools environment
# (scripts/setup-real-tools.sh); exit 77 (ctest: skipped) where it could not be installed.
# usage: with_real_tools.sh VENV SCRIPT ARGS...
set -euo pipefail
venv=$1
shift
if [[ ! -x $venv/bin/python || ! -f $venv/.installed ]]; then
  echo "real tools: no environment at $venv (scripts/setup-real-tools.sh could not install it): skipped"
  exit 77
fi
export PATH=$venv/bin:$PATH PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" "$@"
