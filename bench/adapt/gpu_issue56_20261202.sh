#!/usr/bin/env bash
# Device calls of issue 56 (adaptation at the GPU's pace) on an H200 host. Builds nothing: needs
# .gpu (../shared/tools/gpu-bundle of foehn-mountainwave, bench_remesh_scaling and
# foehn_adapt_remesh_tests); writes $OUT/issue56-part<N>.tar.gz.
#   PART=1: the remesh tests; the default case, one hour, on its fixed mesh, on the published
#           fixed mesh, and adapted every 20 steps with serial Mmg, waiting for it (the
#           baseline, writing each remesh's metric); bench_remesh_scaling on the metric of
#           the adaptation at step 140: serial Mmg against the parallel remesh at 1, 8, 16 and
#           all threads.
#   PART=2: the adaptive run with the parallel remesh, waiting for it and overlapped (the
#           default on the GPU), and overlapped with -adapt_nodes 100000; with two GPUs, if the
#           host has them, on two ranks.
set -uo pipefail
out=${OUT:-/tmp/foehn-out}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"
work=$(mktemp -d)
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; } >"$work/device.txt"
mw() { .gpu/run foehn-mountainwave "$@"; }
say() { echo "== $* ($(date +%T))" | tee -a "$work/calls.log"; }
run_case() {  # $1: folder, then the options
  local name=$1
  shift
  say "$name: $*"
  timeout 400 .gpu/run foehn-mountainwave $common "$@" -output_dir "$work/$name" >"$work/$name.log" 2>&1
  echo "exit $?" >>"$work/$name.log"
  tail -n 1 "$work/$name.log"
  grep -E "adapted at step" "$work/$name.log" | tail -n 2 | cut -c1-400
}
common="-foehn_backend cuda -end_time 3600 -vtk 0 -output_interval 0"
published="-mesh_tets 554394 -horizontal_growth 1.15"
if [[ ${PART:-1} == 1 ]]; then
  say "remesh tests"
  timeout 300 .gpu/run foehn_adapt_remesh_tests >"$work/remesh_tests.log" 2>&1
  echo "exit $?" >>"$work/remesh_tests.log"
  grep -E '^\[  (PASSED|FAILED)|exit' "$work/remesh_tests.log"
  run_case fixed_default
  run_case fixed_published $published
  run_case adaptive_serial -adapt_interval 20 -adapt_remesh_parts 1 -adapt_overlap 0 -adapt_write_metric
  say "bench_remesh_scaling"
  timeout 300 .gpu/run bench_remesh_scaling --input "$work/adaptive_serial/adapt_metric_000140.vtu" \
    --threads "1,8,$(($(nproc) / 2)),$(nproc)" --out "$work/remesh_scaling.json" >"$work/remesh_scaling.log" 2>&1
  echo "exit $?" >>"$work/remesh_scaling.log"
  cat "$work/remesh_scaling.log"
else
  run_case adaptive_parallel_wait -adapt_interval 20 -adapt_overlap 0
  run_case adaptive_parallel_overlap -adapt_interval 20
  run_case adaptive_overlap_100k -adapt_interval 20 -adapt_nodes 100000
  if (($(nvidia-smi -L | wc -l) >= 2)); then
    say "two ranks, one GPU each"
    timeout 400 .gpu/run mpirun -n 2 foehn-mountainwave $common -adapt_interval 20 \
      -output_dir "$work/two_gpus" >"$work/two_gpus.log" 2>&1
    echo "exit $?" >>"$work/two_gpus.log"
    tail -n 1 "$work/two_gpus.log"
  fi
fi
say done
rm -f "$work"/*/*.vtu "$work"/*/mountainwave_mesh*.h5 "$work"/*/checkpoint_* "$work"/*/sections_0*
tar -C "$work" -czf "$out/issue56-part${PART:-1}.tar.gz" .
