#!/usr/bin/env bash
# Issue 36: GAMG's coarse-grid size for the pressure (-pressure_pc_gamg_coarse_eq_limit 1000:
# one level fewer at 553 k tets, the same iterations, 22% fewer of its kernels), timed: 553 k
# tets alternated with the defaults, ROUNDS rounds; 5 M tets one run each. Bundle in .gpu.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
res=$out/coarse_limit.txt
nvidia-smi -L > "$res"
run() {  # name tets steps options
  timeout 240 $r foehn-mountainwave -mesh_tets $2 -foehn_backend cuda -foehn_solves device \
    -max_steps $3 -end_time 3600 -timing_warmup 2 -vtk 0 -sections 0 -output_interval 0 $4 \
    -output_dir /tmp/cl_$1 < /dev/null 2>&1 | quiet > /tmp/cl_$1.log
  echo "$1: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/cl_$1.log | awk -F'|' '{print $3}') s | $(grep -E "^ +$3 " /tmp/cl_$1.log)" >> "$res"
}
for round in $(seq 1 ${ROUNDS:-3}); do
  run default_$round 554394 10 ""
  run coarse1000_$round 554394 10 "-pressure_pc_gamg_coarse_eq_limit 1000"
done
run default_5M 5000000 5 ""
run coarse1000_5M 5000000 5 "-pressure_pc_gamg_coarse_eq_limit 1000"
