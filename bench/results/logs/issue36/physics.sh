#!/usr/bin/env bash
# Issue 36: do the new solver defaults keep the physics, and does GAMG threshold 0.05 set up at
# 5 M tets now? From the repository root with the bundle in .gpu (foehn-mountainwave).
#   PARTS=physics: the main job's default case to 3600 s on the GPU, solves there, three ways:
#     before (cold Picard starts, Jacobi's zero check, CG projection), defaults (this tree),
#     t05 (defaults + -pressure_pc_gamg_threshold 0.05); sections_latest.h5 of each, tarred.
#   PARTS=big: 5 M tets, 4 steps, threshold 0.01 and 0.05.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
nvidia-smi -L > "$out/device.txt"
declare -A variant=(
  [before]="$before_options"
  [defaults]=""
  [t05]="-pressure_pc_gamg_threshold 0.05"
)
parts=${PARTS:-physics big}
if [[ " $parts " == *" physics "* ]]; then
  for v in before defaults t05; do
    timeout 200 $r foehn-mountainwave -foehn_backend cuda -foehn_solves device -end_time 3600 \
      -output_interval 1200 -vtk 0 ${variant[$v]} -output_dir /tmp/ph_$v < /dev/null 2>&1 | quiet \
      > /tmp/ph_$v.log
    echo "physics $v: exit ${PIPESTATUS[0]}, step $(grep "Total timestep duration" /tmp/ph_$v.log | awk -F'|' '{print $3}') s" >> "$out/summary.txt"
    grep -E "^ +180 " /tmp/ph_$v.log >> "$out/summary.txt"
    cp /tmp/ph_$v/sections_latest.h5 "$out/sections_$v.h5"; cp /tmp/ph_$v/run.json "$out/run_$v.json"
  done

fi
if [[ " $parts " == *" big "* ]]; then
  for t in 0.01 0.05; do
    timeout 280 $r foehn-mountainwave -mesh_tets 5000000 -foehn_backend cuda -foehn_solves device \
      -max_steps 4 -end_time 3600 -timing_warmup 2 -vtk 0 -sections 0 -output_interval 0 \
      -pressure_pc_gamg_threshold $t -output_dir /tmp/big_$t < /dev/null 2>&1 | quiet > /tmp/big_$t.log
    echo "5M threshold $t: exit ${PIPESTATUS[0]}, step $(grep "Total timestep duration" /tmp/big_$t.log | awk -F'|' '{print $3}') s" >> "$out/summary.txt"
    grep -E "^ +[1-4] |rror" /tmp/big_$t.log | head -8 >> "$out/summary.txt"
  done
fi
