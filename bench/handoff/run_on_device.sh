#!/usr/bin/env bash
# One device call for the PETSc glue: GPU hand-off tests (+ compute-sanitizer), the CUDA
# Poisson example on 1 and 4 ranks with -log_view, then the hand-off benchmark on 1 rank and on
# 4 ranks sharing the GPU, with the matrices on the GPU and on the host. Run from the repository root on the GPU host with the bundle from
#   ../shared/tools/gpu-bundle -o .gpu build/bin/{bench_handoff,foehn_cuda_petsc_handoff,foehn-poisson}
# usage: bench/handoff/run_on_device.sh <tests|bench|all> [sizes]
set -uo pipefail
what=${1:-all}
sizes=${2:-554394,10000000}
out=${OUT:-/tmp/foehn-out}
mkdir -p "$out"
run=.gpu/run
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun --oversubscribe --bind-to none"
nvidia-smi --query-gpu=name,memory.total --format=csv

if [[ $what == tests || $what == all ]]; then
  status=0
  $run foehn_cuda_petsc_handoff --gtest_brief=1 >"$out/gpu-handoff-tests.log" 2>&1 || status=1
  tail -3 "$out/gpu-handoff-tests.log"
  $run compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    foehn_cuda_petsc_handoff >"$out/handoff-sanitizer.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/handoff-sanitizer.log"
  for ranks in 1 4; do
    $run $mpi -n $ranks foehn-poisson -cells 8 -levels 3 -foehn_backend cuda -log_view \
      >"$out/poisson-cuda-n$ranks.log" 2>&1 || status=1
    head -6 "$out/poisson-cuda-n$ranks.log"
    grep -E "^Foehn|^KSPSolve|^PCSetUp|^MatAssemblyEnd" "$out/poisson-cuda-n$ranks.log" | head -14
  done
  echo "tests status $status"
fi

if [[ $what == bench || $what == all ]]; then
  # With a CUDA PETSc: matrices on the GPU (the default) and, for comparison in the same call,
  # host matrices (-device_matrices 0), the only path of a PETSc without CUDA.
  for ranks in 1 4; do
    for device in 1 0; do
      $run $mpi -n $ranks bench_handoff -sizes "$sizes" -repeats 10 -out_dir "$out" \
        -device_matrices $device 2>&1 | grep -v "pmix\|dlopen\|Perhaps" | tee "$out/bench-n$ranks-device$device.log"
    done
  done
fi
