#!/usr/bin/env bash
# Does the GAMG set-up hang depend on the contents of freshly cudaMalloc'd memory? The
# GPU-resident default case with every cudaMalloc'd block filled with 0x00, then with 0xff
# (malloc_fill_shim.c, LD_PRELOAD), RUNS times each, through hang_options.sh (a run alive after
# 35 s counts as hung). Call 22 ran the same loop written out here.
for fill in ${FILLS:-0 255}; do
  LABEL="fill_$fill" RUNS=${RUNS:-4} \
    ENVS="SHIM_FILL=$fill LD_PRELOAD=$PWD/.gpu/malloc_fill_shim.so" \
    bash bench/results/logs/issue35/hang_options.sh
done
