#!/usr/bin/env bash
# Issue 35 on the device, from the repository root of the working tree with the bundle in .gpu
# (../shared/tools/gpu-bundle -o .gpu build/bin/{foehn-mountainwave,foehn_unit_placement,
#  foehn_petsc_system_tests,foehn_cuda_petsc_handoff,mountain_wave_gpu_test,
#  mountain_wave_core_test}, and the baseline alone: gpu-bundle -o .gpu-base
#  <9d4262d build>/foehn-mountainwave-baseline, its deps.tar.xz removed: .gpu/run unpacks the
#  same libraries first):
#   1. the GPU tests of the placement layer, petsc::System and the core, unchanged ones included;
#   2. compute-sanitizer memcheck on the new for_each kernels and petsc::System on the GPU;
#   3. the main job's default case, 10 steps: CPU against CUDA with the deterministic strategy
#      and host solves (must be bitwise: cmp of the sections files), and the CUDA sections back
#      for comparison with the CPU run of the tree before the change;
#   4. per-step time of the GPU-resident core at 553 k tets, the binary before the change
#      (foehn-mountainwave-baseline; BASELINE names its commit) against this one, alternated,
#      same GPU.
set -uo pipefail
# PARTS: which of 1 2 3 4 5 to run (all by default; 5: two identical GPU-resident runs).
parts=${PARTS:-1 2 3 4 5}
has() { [[ " $parts " == *" $1 "* ]]; }
out=${OUT:-/tmp/issue35}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
r=.gpu/run
quiet() { grep -v "pmix\|dlopen error\|Perhaps a missing"; }
nvidia-smi -L > "$out/device.txt"
has 1 && {
  echo "== 1. GPU tests"
  for t in foehn_unit_placement foehn_petsc_system_tests foehn_cuda_petsc_handoff ${EXTRA_TESTS:-}; do
    $r $t 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED TEST"
    echo "$t exit ${PIPESTATUS[0]}"
  done
  for n in 1 2; do
    $r mpirun --oversubscribe -n $n mountain_wave_gpu_test 2>&1 | quiet > /tmp/gpu_test_n$n.txt
    echo "mountain_wave_gpu_test -n $n: exit ${PIPESTATUS[0]}"
    cat /tmp/gpu_test_n$n.txt >> "$out/gpu_tests_full.txt"
  done
  $r mpirun -n 1 mountain_wave_core_test 2>&1 | quiet > /tmp/core_test_n1.txt
  echo "mountain_wave_core_test -n 1 (every placement): exit ${PIPESTATUS[0]}"
  grep -E "FAILED|restart with the solves" /tmp/core_test_n1.txt
  cat /tmp/core_test_n1.txt >> "$out/gpu_tests_full.txt"
} >> "$out/tests.log" 2>&1
has 2 && {
  echo "== 2. compute-sanitizer memcheck"
  for t in foehn_unit_placement foehn_petsc_system_tests; do
    $r compute-sanitizer --tool memcheck --error-exitcode 9 $t 2>&1 |
      grep -E "ERROR SUMMARY|PASSED|FAILED TEST" | tail -3
    echo "$t under memcheck: exit ${PIPESTATUS[0]}"
  done
} >> "$out/tests.log" 2>&1

if has 3; then
echo "== 3. CPU vs CUDA (deterministic, host solves), default case, 10 steps" > "$out/summary.txt"
for b in cpu cuda; do
  $r foehn-mountainwave -foehn_backend $b -foehn_solves host -foehn_assembly deterministic \
    -end_time 200 -output_interval 200 -output_dir /tmp/mw_$b < /dev/null 2>&1 | quiet \
    > /tmp/mw_$b.log
done
cmp /tmp/mw_cpu/sections_000010.h5 /tmp/mw_cuda/sections_000010.h5 &&
  echo "sections_000010.h5: CPU and CUDA byte-identical" >> "$out/summary.txt" ||
  echo "sections_000010.h5: CPU and CUDA differ" >> "$out/summary.txt"
cp /tmp/mw_cuda/sections_000010.h5 "$out/sections_000010_cuda.h5"
fi
if has 5; then
# Is the GPU-resident run repeatable? Two identical runs with the solves on the GPU.
for run in 1 2; do
  timeout 240 $r foehn-mountainwave -foehn_backend cuda -foehn_solves device -end_time 200 \
    -output_interval 200 -output_dir /tmp/mw_device_$run < /dev/null > /tmp/mw_device_$run.log 2>&1
done
cmp /tmp/mw_device_1/sections_000010.h5 /tmp/mw_device_2/sections_000010.h5 &&
  echo "solves on the GPU: two identical runs byte-identical" >> "$out/summary.txt" ||
  echo "solves on the GPU: two identical runs differ" >> "$out/summary.txt"
tail -4 /tmp/mw_device_1.log /tmp/mw_device_2.log >> "$out/summary.txt"
cp /tmp/mw_device_1/sections_000010.h5 "$out/sections_000010_device1.h5"
cp /tmp/mw_device_2/sections_000010.h5 "$out/sections_000010_device2.h5"
fi

has 4 || exit 0
echo "== 4. GPU-resident step at 553 k tets: baseline (${BASELINE:-9d4262d}) vs this tree" \
  >> "$out/summary.txt"
for round in 1 2 3; do
  for exe in foehn-mountainwave-baseline foehn-mountainwave; do
    runner=$r
    [[ $exe == foehn-mountainwave-baseline ]] && runner=.gpu-base/run
    $runner $exe -mesh_tets 554394 -foehn_backend cuda -foehn_solves device -end_time 240 \
      -output_interval 240 -output_dir /tmp/perf_${exe}_$round < /dev/null 2>&1 | quiet \
      > /tmp/perf_${exe}_$round.log
    step=$(grep "Total timestep duration" /tmp/perf_${exe}_$round.log | awk -F'|' '{print $3}')
    first=$(awk '$1 == 1 && $2 ~ /^[0-9.]+$/ {print $NF; exit}' /tmp/perf_${exe}_$round.log)
    echo "round $round $exe: mean step $step s, first step (with the set-up) $first s" \
      >> "$out/summary.txt"
  done
done
cat /tmp/perf_foehn-mountainwave_2.log | tail -25 > "$out/perf_new_round2.txt"
cat /tmp/perf_foehn-mountainwave-baseline_2.log | tail -25 > "$out/perf_baseline_round2.txt"
