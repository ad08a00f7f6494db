#!/usr/bin/env bash
# One device call: GPU tests, compute-sanitizer, then the assembly benchmark with its peer.
# Run from the repository root on the GPU host, with the bundle from
#   ../shared/tools/gpu-bundle -o .gpu build/bin/<executables>
# usage: bench/assembly/run_on_device.sh <what: tests|bench|all> [sizes] [numberings]
set -uo pipefail
what=${1:-all}
sizes=${2:-554394}
numberings=${3:-natural,shuffled,reordered}
out=${OUT:-/tmp/foehn-out}
mkdir -p "$out"
run=.gpu/run
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv

if [[ $what == tests || $what == all ]]; then
  status=0
  for t in foehn_cuda_runtime foehn_cuda_runtime_check foehn_fe_device_tests foehn_cuda_fe_assembly; do
    $run "$t" --gtest_brief=1 >/tmp/test-$t.log 2>&1 || status=1
    { echo "== $t"; cat /tmp/test-$t.log; } >>"$out/gpu-tests.log"
    tail -2 /tmp/test-$t.log
  done
  # memcheck on the whole assembly suite is slow: one mesh, every strategy and operator.
  san="$out/sanitizer.log"
  $run compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    foehn_cuda_fe_assembly --gtest_filter='*mountain*:CudaPattern*' >>"$san" 2>&1 || status=1
  $run compute-sanitizer --tool racecheck --error-exitcode 9 \
    foehn_cuda_fe_assembly --gtest_filter='*mountain_fused_atomic*:*mountain_deterministic*' \
    >>"$san" 2>&1 || status=1
  # The runtime tests provoke API errors on purpose (out of memory, invalid launch).
  $run compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 foehn_cuda_runtime \
    >>"$san" 2>&1 || status=1
  grep -E "SUMMARY|PASSED|FAILED" "$san"
  echo "tests status $status"
fi

if [[ $what == profile ]]; then
  # Nsight Compute on the fused and deterministic kernels of the diffusion case, and block 128.
  # The FLOP counters (double add, mul, fma instructions) give the roofline of each kernel.
  $run ncu --kernel-name regex:'fused_assembly_kernel|element_matrices_kernel|ordered_sum|row_gather_kernel' \
    --launch-skip 0 --launch-count 20 --section SpeedOfLight --section Occupancy \
    --section MemoryWorkloadAnalysis --section LaunchStats --section ComputeWorkloadAnalysis \
    --metrics sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,dram__bytes.sum,lts__t_bytes.sum \
    bench_assembly --sizes "$sizes" --numberings natural --repeats 1 --warmups 0 \
    --cpu-max-tets 0 --out-dir /tmp >"$out/ncu.log" 2>&1
  grep -E 'fused_assembly_kernel|element_matrices|ordered_sum|row_gather_kernel|op_d|dram__bytes|lts__t_bytes|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Duration|L2 Hit|L1/TEX Hit|Compute \(SM\)' "$out/ncu.log" | head -120
  $run bench_assembly --sizes "$sizes" --numberings natural --repeats 20 --block-size 128 \
    --cpu-max-tets 0 --out-dir /tmp 2>&1 | grep -E 'fused|determ|row_gather'
fi

if [[ $what == bench || $what == all ]]; then
  rm -rf /tmp/peer
  $run bench_assembly --export-peer-mesh /tmp/peer --sizes "$sizes" || exit 1
  : >"$out/peer.txt"
  for d in /tmp/peer/*; do
    PYTHONUNBUFFERED=1 python3 bench/assembly/peer_pytorch.py "$d" 20 | tee -a "$out/peer.txt"
  done
  $run bench_assembly --sizes "$sizes" --numberings "$numberings" --repeats 20 \
    --peer-results "$out/peer.txt" --out-dir "$out" --suffix "${SUFFIX:-}" 2>&1 | tee "$out/bench.log"
fi

if [[ $what == cpu || $what == all ]]; then
  # The CPU FE benchmark (one core vs PETSc MatSetValues) on this host's CPU.
  $run bench_fe_cpu --out "$out/fe_cpu-host.json" --markdown "$out/fe_cpu-host.md" 2>&1 | tail -30
fi
