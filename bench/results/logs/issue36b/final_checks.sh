#!/usr/bin/env bash
# Issue 36, second session, last call (one H100), from the repository root with the bundle in
# .gpu (foehn-mountainwave of this tree, foehn-mountainwave-before = 63256ff with its own
# libfoehn, the GPU tests):
#   1. GPU tests: petsc::System on every placement, the core's physics on every placement, CPU vs
#      GPU (tight tolerances), on 1 and 2 ranks;
#   2. counted runs at 553 k tets, before and this tree;
#   3. the step timed, before against this tree, alternated, ROUNDS rounds;
#   4. 5 M tets, before and this tree; 5. the main job to 3600 s (sections back).
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/final.txt
nvidia-smi -L > "$res"
echo "== 1. GPU tests" >> "$res"
gpu_tests
echo "== 2. counted, 553 k tets" >> "$res"
step before_counted foehn-mountainwave-before -count_cuda_calls
step now_counted foehn-mountainwave -count_cuda_calls
for v in before_counted now_counted; do
  counts $v
  cp /tmp/s_$v/run.json "$out/run_553k_$v.json"
done
echo "== 3. timed, alternated" >> "$res"
for round in $(seq 1 ${ROUNDS:-3}); do
  step before_$round foehn-mountainwave-before
  step now_$round foehn-mountainwave
done
cp /tmp/s_now_1/run.json "$out/run_553k_now_1.json"
echo "== 4. 5 M tets" >> "$res"
for v in before now; do
  program=foehn-mountainwave; [[ $v == before ]] && program=foehn-mountainwave-before
  timeout 200 $r $program -mesh_tets 5000000 -foehn_backend cuda -foehn_solves device \
    -max_steps 6 -end_time 3600 -timing_warmup 3 -vtk 0 -sections 0 -output_interval 0 \
    -output_dir /tmp/big_$v < /dev/null 2>&1 | quiet > /tmp/big_$v.log
  echo "5M $v: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/big_$v.log | awk -F'|' '{print $3}') s" >> "$res"
  grep -E "^ +[4-6] |rror" /tmp/big_$v.log | head -4 >> "$res"
done
echo "== 5. main job to 3600 s" >> "$res"
timeout 200 $r foehn-mountainwave -foehn_backend cuda -foehn_solves device -end_time 3600 \
  -output_interval 1200 -vtk 0 -output_dir /tmp/ph < /dev/null 2>&1 | quiet > /tmp/ph.log
echo "physics now: exit ${PIPESTATUS[0]}, step $(grep "Total timestep duration" /tmp/ph.log | awk -F'|' '{print $3}') s" >> "$res"
grep -E "^ +180 " /tmp/ph.log >> "$res"
cp /tmp/ph/sections_latest.h5 "$out/sections_now.h5"
