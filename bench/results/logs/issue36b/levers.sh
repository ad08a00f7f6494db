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
$r foehn_petsc_system_tests > /tmp/system.txt 2>&1; echo "foehn_petsc_system_tests exit $?" >> "$res"
grep -E "^\[  (PASSED|FAILED) |FAILED TEST" /tmp/system.txt >> "$res"
for t in mountain_wave_core_test mountain_wave_gpu_test; do
  for n in 1 2; do
    $r mpirun --oversubscribe -n $n $t 2>&1 | quiet > /tmp/${t}_$n.txt
    echo "$t -n $n: exit ${PIPESTATUS[0]}" >> "$res"
    grep -E "FAILED|PASSED|max \|w" /tmp/${t}_$n.txt | sort | uniq | head -12 >> "$res"
  done
done
echo "== 2. counted runs, 553 k tets" >> "$res"
step() {  # name program options...
  local name=$1 program=$2; shift 2
  timeout 150 $r $program -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 "$@" \
    -output_dir /tmp/s_$name < /dev/null 2>&1 | quiet > /tmp/s_$name.log
  echo "$name: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/s_$name.log | awk -F'|' '{print $3}') s | $(grep -E '^ +10 ' /tmp/s_$name.log)" >> "$res"
}
step before_counted foehn-mountainwave-before -count_cuda_calls
step now_counted foehn-mountainwave -count_cuda_calls
step early0_counted foehn-mountainwave -count_cuda_calls -picard_early_rtol 0
step early1e-4_counted foehn-mountainwave -count_cuda_calls -picard_early_rtol 1e-4
for v in before_counted now_counted early0_counted early1e-4_counted; do
  echo "-- $v" >> "$res"
  grep -A10 "^| System" /tmp/s_$v.log >> "$res"
  python3 - /tmp/s_$v/run.json >> "$res" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["timed_steps"]["cuda_calls_per_step"]
print("  step: %.0f kernels, %.0f syncs" % (d["kernel_launches"], d["host_synchronizations"]))
PY
done
cp /tmp/s_before_counted/run.json "$out/run_before_counted.json"
cp /tmp/s_now_counted/run.json "$out/run_now_counted.json"
echo "== 3. timed, alternated" >> "$res"
for round in $(seq 1 ${ROUNDS:-3}); do
  step before_$round foehn-mountainwave-before
  step now_$round foehn-mountainwave
done
