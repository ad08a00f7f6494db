#!/usr/bin/env bash
# Session of 2026-11-28 on a two-GPU host, from the repository root with the bundle in .gpu
# (../shared/tools/gpu-bundle -o .gpu build/bin/{foehn-mountainwave,foehn_cuda_runtime,
#  foehn_cuda_chemistry_tests,foehn_cuda_particles_tests,foehn_cuda_particles_mesh_tests,
#  foehn_cuda_stencils_tests,foehn_cuda_fe_assembly,foehn_cuda_petsc_handoff,
#  mountain_wave_gpu_test,distributed_diffusion_test}):
#   1. the GPU tests of the code whose long functions were split (Rosenbrock, particle transport,
#      the staged assembly, the distributed stencil's GPU halo routes with one GPU per rank) and
#      of the CUDA call counts;
#   2. compute-sanitizer memcheck on the call counts and the staged assembly;
#   3. CUDA calls per step and per system of the GPU-resident core at 553 k tets
#      (-count_cuda_calls), and the same run without counting for its cost.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
parts=${PARTS:-1 2 3}
has() { [[ " $parts " == *" $1 "* ]]; }
nvidia-smi -L > "$out/device.txt"
has 1 && {
  echo "== 1. GPU tests"
  for t in foehn_cuda_runtime foehn_cuda_chemistry_tests foehn_cuda_particles_tests \
    foehn_cuda_particles_mesh_tests foehn_cuda_stencils_tests foehn_cuda_fe_assembly \
    foehn_cuda_petsc_handoff; do
    $r $t > /tmp/$t.txt 2>&1
    echo "$t exit $?"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED TEST" /tmp/$t.txt
    cat /tmp/$t.txt >> "$out/gpu_tests_full.txt"
  done
  grep -A3 "CudaCallCounts" /tmp/foehn_cuda_runtime.txt | head -30
  for n in 1 2; do
    $r mpirun -n $n distributed_diffusion_test 2> distributed_diffusion_test -foehn_devices 0,1 2>&11 | quiet > /tmp/dd_$n.txt
    echo "distributed_diffusion_test -n $n (one GPU per rank): exit ${PIPESTATUS[0]}"
    grep -E "PASSED|FAILED|SKIPPED|route" /tmp/dd_$n.txt | head -8
    cat /tmp/dd_$n.txt >> "$out/gpu_tests_full.txt"
    $r mpirun -n $n mountain_wave_gpu_test 2>&1 | quiet > /tmp/mwg_$n.txt
    echo "mountain_wave_gpu_test -n $n: exit ${PIPESTATUS[0]}"
    grep -E "PASSED|FAILED" /tmp/mwg_$n.txt | head -4
    cat /tmp/mwg_$n.txt >> "$out/gpu_tests_full.txt"
  done
} >> "$out/tests.log" 2>&1
has 2 && {
  echo "== 2. compute-sanitizer memcheck"
  $r compute-sanitizer --tool memcheck --error-exitcode 9 foehn_cuda_runtime \
    --gtest_filter='CudaCallCounts*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED|SKIPPED|subscriber" | tail -4
  echo "foehn_cuda_runtime (call counts) under memcheck: exit ${PIPESTATUS[0]}"
  $r compute-sanitizer --tool memcheck --error-exitcode 9 foehn_cuda_fe_assembly \
    --gtest_filter='*taged*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | tail -3
  echo "foehn_cuda_fe_assembly (staged) under memcheck: exit ${PIPESTATUS[0]}"
} >> "$out/tests.log" 2>&1
has 3 || exit 0
echo "== 3. CUDA calls of the GPU-resident step, 553 k tets" >> "$out/summary.txt"
for round in 1 2; do
  for mode in counted plain; do
    flag=""
    [[ $mode == counted ]] && flag="-count_cuda_calls"
    $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
      -end_time 200 -output_interval 200 -timing_warmup 3 -sections 0 -vtk 0 $flag \
      -output_dir /tmp/calls_${mode}_$round < /dev/null 2>&1 | quiet > /tmp/calls_${mode}_$round.log
    step=$(grep "Total timestep duration" /tmp/calls_${mode}_$round.log | awk -F'|' '{print $3}')
    echo "round $round $mode: mean step $step s" >> "$out/summary.txt"
    cp /tmp/calls_${mode}_$round/run.json "$out/run_${mode}_$round.json"
  done
done
tail -14 /tmp/calls_counted_1.log >> "$out/summary.txt"
cp /tmp/calls_counted_1.log "$out/calls_counted_1.log"
