#!/usr/bin/env bash
# One device call for the chemistry subsystem: the GPU tests (both strategies, three layouts, four
# methods against the CPU reference; split; factorisation kernel), compute-sanitizer memcheck and
# racecheck on them, then bench_chemistry. Run from the repository root on the GPU host with the
# bundle made here by
#   ../shared/tools/gpu-bundle -o .gpu/chemistry build-lead/bin/{foehn_cuda_chemistry_tests,bench_chemistry,foehn-box}
# (carry .gpu/chemistry in the device call; FOEHN_GPU_BUNDLE names another bundle folder).
# usage: bench/chemistry/run_on_device.sh <tests|bench|all> [extra bench_chemistry options]
#   e.g. bench/chemistry/run_on_device.sh bench -cells 1000,10000 -repeats 1   (a quick run)
set -uo pipefail
what=${1:-all}
shift || true
out=${OUT:-/tmp/foehn-out}
mkdir -p "$out"
run=${FOEHN_GPU_BUNDLE:-.gpu/chemistry}/run
[[ -x $run ]] || { echo "no bundle at $run: see the comment at the top" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
status=0
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

if [[ $what == tests || $what == all ]]; then
  exe=foehn_cuda_chemistry_tests
  $run $exe --gtest_brief=1 >"$out/$exe.log" 2>&1 || status=1
  tail -6 "$out/$exe.log"
  # The sanitizers on small batches (every access is instrumented: minutes per full test).
  FOEHN_CHEMISTRY_TEST_CELLS=40 timeout 240 $run "$sanitizer" --tool memcheck --error-exitcode 9 $exe \
    --gtest_brief=1 --gtest_filter='*EveryStrategy*:*Factorisation*:*Failures*' \
    >"$out/$exe-memcheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/$exe-memcheck.log" | tail -3
  # Shared-memory races of the warp-per-cell kernel.
  FOEHN_CHEMISTRY_TEST_CELLS=4 timeout 240 $run "$sanitizer" --tool racecheck --error-exitcode 9 $exe \
    --gtest_brief=1 --gtest_filter='*EveryStrategy*' >"$out/$exe-racecheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/$exe-racecheck.log" | tail -3
  echo "tests status $status"
fi

if [[ $what == bench || $what == all ]]; then
  $run bench_chemistry -out_dir "$out" "$@" 2>&1 | tee "$out/bench-chemistry.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
exit $status
