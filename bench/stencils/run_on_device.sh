#!/usr/bin/env bash
# One device call for the stencil subsystem: the GPU tests (all kernels bitwise against the CPU
# reference, 1024 iterations), compute-sanitizer memcheck on the same binary (few iterations:
# every launch is slow under the sanitizer), then bench_stencils. Run from the repository root
# on the GPU host with the bundle made here by
#   ../shared/tools/gpu-bundle -o .gpu/stencils build-stencil/bin/{foehn_cuda_stencils_tests,bench_stencils}
# (its own folder under the ignored .gpu/, so that it does not replace the libfoehn.so of other
# bundles; FOEHN_GPU_BUNDLE names another one). Carry .gpu/stencils in the device call.
# usage: bench/stencils/run_on_device.sh <tests|bench|all|distributed> [extra bench options]
#   distributed: the multi-rank tests (1, 2, 4 ranks; the GPU cases run, ranks share the host's
#   GPUs round robin), memcheck of 2 ranks, and bench_stencils_distributed on RANKS (default 4)
#   ranks; bundle build/bin/{distributed_diffusion_test,bench_stencils_distributed} as well.
#   e.g. bench/stencils/run_on_device.sh bench -iterations 64     (a quick run)
# Budget: tests ~1-3 min (memcheck and racecheck dominate), bench ~3-4 min on an H100.
set -uo pipefail
what=${1:-all}
shift || true
out=${OUT:-/tmp/foehn-out}
mkdir -p "$out"
run=${FOEHN_GPU_BUNDLE:-.gpu/stencils}/run
[[ -x $run ]] || { echo "no bundle at $run: see the comment at the top" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
status=0
# The toolkit's sanitizer, on PATH or where the CUDA toolkit usually lives.
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

if [[ $what == tests || $what == all ]]; then
  exe=foehn_cuda_stencils_tests
  $run $exe --gtest_brief=1 >"$out/$exe.log" 2>&1 || status=1
  tail -4 "$out/$exe.log"
  FOEHN_STENCIL_TEST_ITERATIONS=6 $run "$sanitizer" --tool memcheck --error-exitcode 9 \
    $exe --gtest_brief=1 >"$out/$exe-memcheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/$exe-memcheck.log" | tail -3
  # Shared-memory races in the fused and level-resident kernels (missing __syncthreads).
  FOEHN_STENCIL_TEST_ITERATIONS=3 $run "$sanitizer" --tool racecheck --error-exitcode 9 \
    $exe --gtest_brief=1 --gtest_filter='*FloatPeriodic*' \
    >"$out/$exe-racecheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/$exe-racecheck.log" | tail -3
  echo "tests status $status"
fi

if [[ $what == bench || $what == all ]]; then
  $run bench_stencils -out_dir "$out" "$@" 2>&1 | tee "$out/bench-stencils.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
if [[ $what == distributed ]]; then
  mpi="mpirun --oversubscribe --bind-to none"
  for n in 1 2 4; do
    $run $mpi -n $n distributed_diffusion_test --gtest_brief=1 \
      >"$out/distributed-test-n$n.log" 2>&1 || status=1
    echo "distributed_diffusion_test, $n ranks:"; grep -E "PASSED|FAILED|SKIPPED \[" \
      "$out/distributed-test-n$n.log" | sort | uniq -c | head -6
  done
  $run $mpi -n 2 "$sanitizer" --tool memcheck --error-exitcode 9 distributed_diffusion_test \
    --gtest_brief=1 --gtest_filter='*cuda*:*Gpu*' >"$out/distributed-test-memcheck.log" 2>&1 ||
    status=1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/distributed-test-memcheck.log" | sort | uniq -c
  $run $mpi -n "${RANKS:-4}" bench_stencils_distributed -out_dir "$out" "$@" 2>&1 |
    grep -v "pmix\|dlopen error" | tee "$out/bench-stencils-distributed.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
exit $status
