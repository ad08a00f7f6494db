#!/usr/bin/env bash
# Issue 36, second session, call 8 (one H100), bundle as for levers.sh plus the System tests:
#   1. petsc::System's GPU tests (CG + GAMG waits only for its reductions);
#   2. counted runs at 553 k tets: this tree (coarse LU in natural ordering) and with PETSc's
#      nested-dissection ordering back (-pressure_mg_coarse_sub_pc_factor_mat_ordering_type nd);
#   3. the step timed, before (63256ff) against this tree, alternated, ROUNDS rounds;
#   4. 5 M tets, this tree, counted; 5. the main job to 3600 s (sections back).
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/coarse_ordering.txt
nvidia-smi -L > "$res"
$r foehn_petsc_system_tests > /tmp/system.txt 2>&1; echo "foehn_petsc_system_tests exit $?" >> "$res"
grep -E "^\[  (PASSED|FAILED) |FAILED TEST|Failure|Which is|actual" /tmp/system.txt >> "$res"
step natural_counted foehn-mountainwave -count_cuda_calls
step nd_counted foehn-mountainwave -count_cuda_calls -pressure_mg_coarse_sub_pc_factor_mat_ordering_type nd
for v in natural_counted nd_counted; do
  counts $v
done
cp /tmp/s_natural_counted/run.json "$out/run_now_counted.json"
for round in $(seq 1 ${ROUNDS:-3}); do
  step before_$round foehn-mountainwave-before
  step now_$round foehn-mountainwave
done
timeout 200 $r foehn-mountainwave -mesh_tets 5000000 -foehn_backend cuda -foehn_solves device \
  -max_steps 6 -end_time 3600 -timing_warmup 3 -vtk 0 -sections 0 -output_interval 0 \
  -count_cuda_calls -output_dir /tmp/big < /dev/null 2>&1 | quiet > /tmp/big.log
echo "5M now: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/big.log | awk -F'|' '{print $3}') s" >> "$res"
grep -E "^ +[1-6] |rror" /tmp/big.log | head -8 >> "$res"
grep -A10 "^| System" /tmp/big.log >> "$res"
cp /tmp/big/run.json "$out/run_5M_now_counted.json"
timeout 200 $r foehn-mountainwave -foehn_backend cuda -foehn_solves device -end_time 3600 \
  -output_interval 1200 -vtk 0 -output_dir /tmp/ph < /dev/null 2>&1 | quiet > /tmp/ph.log
echo "physics now: exit ${PIPESTATUS[0]}, step $(grep "Total timestep duration" /tmp/ph.log | awk -F'|' '{print $3}') s" >> "$res"
grep -E "^ +180 " /tmp/ph.log >> "$res"
cp /tmp/ph/sections_latest.h5 "$out/sections_now.h5"
