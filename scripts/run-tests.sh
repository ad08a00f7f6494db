#!/usr/bin/env bash
# README command two: set up and build, then run the whole test suite with CTest.
# GPU tests skip themselves where no CUDA device exists.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
exec ctest --test-dir build --output-on-failure -j "$jobs"
