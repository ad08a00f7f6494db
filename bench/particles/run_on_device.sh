#!/usr/bin/env bash
# One device call for the particle subsystem: GPU tests (+ compute-sanitizer memcheck), then
# bench_particles. Run from the repository root on the GPU host with the bundle from
#   ../shared/tools/gpu-bundle -o .gpu build/bin/{foehn_cuda_particles_tests,foehn_cuda_particles_mesh_tests,bench_particles}
# usage: bench/particles/run_on_device.sh <tests|bench|all> [extra bench_particles options]
set -uo pipefail
what=${1:-all}
shift || true
out=${OUT:-/tmp/foehn-out}
mkdir -p "$out"
run=.gpu/run
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader

if [[ $what == tests || $what == all ]]; then
  status=0
  for exe in foehn_cuda_particles_tests foehn_cuda_particles_mesh_tests; do
    # The bundle is packed (.gpu/app.tar.xz): ask the runner whether it holds the executable.
    $run $exe --gtest_list_tests >/dev/null 2>&1 || { echo "$exe: not in this bundle"; continue; }
    $run $exe --gtest_brief=1 >"$out/$exe.log" 2>&1 || status=1
    tail -4 "$out/$exe.log"
    $run compute-sanitizer --tool memcheck --error-exitcode 9 $exe --gtest_brief=1 \
      >"$out/$exe-sanitizer.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/$exe-sanitizer.log" | tail -3
  done
  echo "tests status $status"
fi

if [[ $what == bench || $what == all ]]; then
  $run bench_particles -out_dir "$out" "$@" 2>&1 | tee "$out/bench-particles.log"
fi
