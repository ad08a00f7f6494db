#!/usr/bin/env bash
# Issue 36, end of the session of 2026-11-28, one GPU, from the repository root with the bundle
# in .gpu (foehn-mountainwave, foehn_petsc_system_tests, mountain_wave_core_test,
# foehn_cuda_runtime):
#   1. GPU tests: petsc::System on every placement (fixed Chebyshev included), the core's physics
#      on every placement (warm Picard starts included), the CUDA call counts;
#   2. the GPU-resident step at 553 k tets, before (cold Picard starts, Jacobi's zero check, CG
#      projection: the same binary with options) against this tree's defaults, alternated, ROUNDS
#      rounds, then one counted run of each (-count_cuda_calls);
#   3. the CPU path at 553 k tets, 1 rank and 16 ranks, before against the defaults.
# Everything lands in $OUT/results.txt and $OUT/run_*.json (at most 8 files come back).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
res=$out/results.txt
nvidia-smi -L > "$res"
echo "== 1. GPU tests" >> "$res"
for t in foehn_petsc_system_tests foehn_cuda_runtime; do
  $r $t > /tmp/$t.txt 2>&1; echo "$t exit $?" >> "$res"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Chebyshev" /tmp/$t.txt >> "$res"
done
for n in 1 2; do
  $r mpirun --oversubscribe -n $n mountain_wave_core_test 2>&1 | quiet > /tmp/core_$n.txt
  echo "mountain_wave_core_test -n $n: exit ${PIPESTATUS[0]}" >> "$res"
  grep -E "FAILED|PASSED|WarmPicard" /tmp/core_$n.txt | head -8 >> "$res"
done
echo "== 2. GPU-resident step, 553 k tets" >> "$res"
gpu() {  # name options extra
  timeout 120 $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 $2 $3 \
    -output_dir /tmp/g_$1 < /dev/null 2>&1 | quiet > /tmp/g_$1.log
  echo "$1: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/g_$1.log | awk -F'|' '{print $3}') s | $(grep -E '^ +10 ' /tmp/g_$1.log)" >> "$res"
}
for round in $(seq 1 ${ROUNDS:-3}); do
  gpu before_$round "$before_options" ""
  gpu defaults_$round "" ""
done
gpu before_counted "$before_options" -count_cuda_calls
gpu defaults_counted "" -count_cuda_calls
for v in before_counted defaults_counted; do
  grep -A10 "^| System" /tmp/g_$v.log >> "$res"
  cp /tmp/g_$v/run.json "$out/run_gpu_$v.json"
done
cp /tmp/g_defaults_1/run.json "$out/run_gpu_defaults_1.json"
echo "== 3. CPU path, 553 k tets, 5 steps (2 timed)" >> "$res"
for ranks in 1 16; do
  for v in before defaults; do
    opts=""; [[ $v == before ]] && opts=$before_options
    timeout 200 $r mpirun --bind-to core -n $ranks foehn-mountainwave -mesh_tets 554394 \
      -foehn_backend cpu -max_steps 5 -end_time 200 -timing_warmup 3 -vtk 0 -sections 0 \
      -output_interval 0 $opts -output_dir /tmp/c_${v}_$ranks < /dev/null 2>&1 | quiet > /tmp/c_${v}_$ranks.log
    echo "CPU $ranks rank(s) $v: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/c_${v}_$ranks.log | awk -F'|' '{print $3}') s | $(grep -E '^ +5 ' /tmp/c_${v}_$ranks.log)" >> "$res"
  done
done
