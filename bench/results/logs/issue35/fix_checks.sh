#!/usr/bin/env bash
# The re-landed tree with GAMG's Galerkin products on the host for GPU operators: (1) the
# GPU-resident default case RUNS times (a run alive after 35 s counts as hung), then
# device_checks.sh (GPU tests, memcheck, CPU vs CUDA, two identical GPU-resident runs, and the
# step at 553 k tets against 9d4262d).
out=${OUT:-/tmp/probe}; mkdir -p $out
LABEL=host_products RUNS=${RUNS:-16} bash bench/results/logs/issue35/hang_options.sh
PARTS=${PARTS:-1 2 3 5 4} bash bench/results/logs/issue35/device_checks.sh
