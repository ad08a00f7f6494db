#!/usr/bin/env bash
# Issue 36, second session, call 2 (one H100): from the repository root with the bundle in .gpu
# (foehn-mountainwave of this tree, foehn-mountainwave-before = the same program at 63256ff with
# its own libfoehn, and the GPU tests):
#   1. GPU tests: petsc::System on every placement (the loosened Chebyshev solve), the core's
#      physics on every placement (early Picard tolerance, zero tracers), CPU vs GPU;
#   2. counted runs at 553 k tets, GPU-resident: before, this tree, this tree with
#      -picard_early_rtol 0 (constant operators and zero tracers only) and 1e-4;
#   3. the step timed, before against this tree, alternated, ROUNDS rounds.
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/levers.txt
nvidia-smi -L > "$res"
echo "== 1. GPU tests" >> "$res"
gpu_tests
echo "== 2. counted runs, 553 k tets" >> "$res"
step before_counted foehn-mountainwave-before -count_cuda_calls
step now_counted foehn-mountainwave -count_cuda_calls
step early0_counted foehn-mountainwave -count_cuda_calls -picard_early_rtol 0
step early1e-4_counted foehn-mountainwave -count_cuda_calls -picard_early_rtol 1e-4
for v in before_counted now_counted early0_counted early1e-4_counted; do
  counts $v
done
cp /tmp/s_before_counted/run.json "$out/run_before_counted.json"
cp /tmp/s_now_counted/run.json "$out/run_now_counted.json"
echo "== 3. timed, alternated" >> "$res"
for round in $(seq 1 ${ROUNDS:-3}); do
  step before_$round foehn-mountainwave-before
  step now_$round foehn-mountainwave
done
