#!/usr/bin/env bash
# Issue 36, second session, call 3 (one H100), bundle as for levers.sh:
#   1. CPU vs GPU with tight tolerances (the fixed Chebyshev capped before PETSc's overflow);
#   2. the main job's default case to 3600 s on the GPU: before (63256ff), this tree, this tree
#      with -picard_early_rtol 1e-4; the sections files come back for the linear-theory table;
#   3. the CPU path at 553 k tets, 1 and 16 ranks, 5 steps (2 timed), before against this tree.
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/physics_cpu.txt
nvidia-smi -L > "$res"
echo "== 1. tight CPU vs GPU" >> "$res"
for n in 1 2; do
  $r mpirun --oversubscribe -n $n mountain_wave_gpu_test 2>&1 | quiet > /tmp/gpu_$n.txt
  echo "mountain_wave_gpu_test -n $n: exit ${PIPESTATUS[0]}" >> "$res"
  grep -E "FAILED|PASSED|solves on the GPU" /tmp/gpu_$n.txt | sort | uniq >> "$res"
done
echo "== 2. main job to 3600 s" >> "$res"
declare -A program=([before]=foehn-mountainwave-before [now]=foehn-mountainwave [early1e-4]=foehn-mountainwave)
declare -A extra=([before]="" [now]="" [early1e-4]="-picard_early_rtol 1e-4")
for v in before now early1e-4; do
  timeout 200 $r ${program[$v]} -foehn_backend cuda -foehn_solves device -end_time 3600 \
    -output_interval 1200 -vtk 0 ${extra[$v]} -output_dir /tmp/ph_$v < /dev/null 2>&1 | quiet \
    > /tmp/ph_$v.log
  echo "physics $v: exit ${PIPESTATUS[0]}, step $(grep "Total timestep duration" /tmp/ph_$v.log | awk -F'|' '{print $3}') s" >> "$res"
  grep -E "^ +180 " /tmp/ph_$v.log >> "$res"
  cp /tmp/ph_$v/sections_latest.h5 "$out/sections_$v.h5"
done
echo "== 3. CPU path, 553 k tets" >> "$res"
for ranks in 1 16; do
  for v in before now; do
    timeout 200 $r mpirun --bind-to core -n $ranks ${program[$v]} -mesh_tets 554394 \
      -foehn_backend cpu -max_steps 5 -end_time 200 -timing_warmup 3 -vtk 0 -sections 0 \
      -output_interval 0 -output_dir /tmp/c_${v}_$ranks < /dev/null 2>&1 | quiet > /tmp/c_${v}_$ranks.log
    echo "CPU $ranks rank(s) $v: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/c_${v}_$ranks.log | awk -F'|' '{print $3}') s | $(grep -E '^ +5 ' /tmp/c_${v}_$ranks.log)" >> "$res"
  done
done
