#!/usr/bin/env bash
# Device calls of issue 56 (adaptation at the GPU's pace) on an H200 host. Builds nothing: needs
# .gpu (../shared/tools/gpu-bundle of foehn-mountainwave and bench_remesh_scaling); writes one archive per case into $OUT (a file back is at most
# 16 MiB): each run's log, run.json, timing and its comparison with linear theory (computed
# there, on the last sections), not its meshes, checkpoints or sections.
#   PART=1: the default case, one hour, on its fixed mesh, on the published
#           fixed mesh, and adapted every 20 steps with serial Mmg, waiting for it (the
#           baseline, writing each remesh's metric); bench_remesh_scaling on the metric of
#           the adaptation at step 140: serial Mmg against the parallel remesh at 1, 8, 16 and
#           all threads.
#   PART=2: the adaptive run with the parallel remesh, waiting for it and overlapped (the
#           default on the GPU), and overlapped with -adapt_nodes 100000; with two GPUs, if the
#           host has them, on two ranks.
#   PART=3: (the band of later passes) bench_remesh_scaling on METRIC (an adapt_metric_*.vtu
#           carried to the device): serial Mmg and the parallel remesh (a band of 2 layers,
#           short edges freed) at 4, 8 and all threads; at all threads a band of 3 layers, the
#           whole mesh in every pass (0), and short edges left as they are; the fixed default
#           mesh; the adaptive run with the parallel remesh on all cores, waiting for it and
#           overlapped; with SERIAL=1 the serial adaptive run too. Also at all threads: the
#           parts balanced in tets instead of expected work. (The first PART=3 call, at d67ca22,
#           ran bands of 3, then 2, 5, 0; the second, at 3351664, without the tets_balanced case.)
#   PART=4: (the repair passes in one part) bench_remesh_scaling on METRIC at all threads with
#           serial Mmg; the fixed default mesh; the adaptive run, parallel remesh, waiting.
#   PART=5: (the parts' cells graded from their frozen triangles at the metric's gradation)
#           bench_remesh_scaling on METRIC: serial Mmg, the parallel remesh at all threads, and
#           with Mmg's own -hgradreq 2.3 as before; the fixed default mesh; the adaptive run with
#           the parallel remesh on all cores, waiting for it and overlapped.
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
  [[ ${keep_meshes:-0} == 1 ]] || pack "$name"
}
pack() {  # $1: a case's folder: its linear theory, then the small files into $OUT/$1.tar.gz
  local folder=$work/$1
  if [[ -f $folder/sections_latest.h5 ]]; then
    timeout 120 python3 validation/linear_theory/compare_to_linear_theory.py --no-plots \
      --model "$folder/sections_latest.h5" --out "$folder/linear_theory" >"$folder/linear_theory.log" 2>&1
    grep -E "^ *[0-9]+ m|corr" "$folder/linear_theory.log" | head -n 4
  fi
  rm -f "$folder"/*.vtu "$folder"/mountainwave_mesh*.h5 "$folder"/checkpoint_* "$folder"/sections_*
  cp "$work/$1.log" "$folder/" 2>/dev/null
  tar -C "$work" -czf "$out/$1.tar.gz" "$1"
}
scale() {  # $1: a name, then bench_remesh_scaling's options
  local name=$1
  shift
  timeout 200 .gpu/run bench_remesh_scaling --input "$METRIC" "$@" \
    --out "$work/scaling/$name.json" >"$work/scaling/$name.log" 2>&1
  echo "exit $?" >>"$work/scaling/$name.log"
  cat "$work/scaling/$name.log"
}
common="-foehn_backend cuda -end_time 3600 -vtk 0 -output_interval 0"
published="-mesh_tets 554394 -horizontal_growth 1.15"
if [[ ${PART:-1} == 1 ]]; then
  run_case fixed_default
  run_case fixed_published $published
  keep_meshes=1 run_case adaptive_serial -adapt_interval 20 -adapt_remesh_parts 1 -adapt_overlap 0 \
    -adapt_write_metric
  say "bench_remesh_scaling"
  mkdir -p "$work/scaling"
  timeout 300 .gpu/run bench_remesh_scaling --input "$work/adaptive_serial/adapt_metric_000140.vtu" \
    --threads "4,8,$(nproc)" --both-memory-caps 1 --out "$work/scaling/remesh_scaling.json" \
    >"$work/scaling/remesh_scaling.log" 2>&1
  echo "exit $?" >>"$work/scaling/remesh_scaling.log"
  cat "$work/scaling/remesh_scaling.log"
  cp "$work/device.txt" "$work/scaling/"
  tar -C "$work" -czf "$out/scaling.tar.gz" scaling
  pack adaptive_serial
elif [[ $PART == 3 ]]; then
  say "bench_remesh_scaling on $METRIC"
  mkdir -p "$work/scaling"
  scale band2 --threads "4,8,$(nproc)"
  scale band_variants --serial 0 --threads "$(nproc)" --band-layers 3,0
  scale no_short_edge_pass --serial 0 --threads "$(nproc)" --short-edge 0 --short-edge-fraction 0
  scale tets_balanced --serial 0 --threads "$(nproc)" --balance-work 0
  cp "$work/device.txt" "$work/scaling/"
  tar -C "$work" -czf "$out/scaling.tar.gz" scaling
  run_case fixed_default
  run_case adaptive_parallel_wait -adapt_interval 20 -adapt_remesh_parts 0 -adapt_overlap 0
  run_case adaptive_parallel_overlap -adapt_interval 20 -adapt_remesh_parts 0 -adapt_overlap 1
  [[ ${SERIAL:-0} == 1 ]] && run_case adaptive_serial -adapt_interval 20 -adapt_remesh_parts 1 \
    -adapt_overlap 0
elif [[ $PART == 4 ]]; then
  say "bench_remesh_scaling on $METRIC"
  mkdir -p "$work/scaling"
  scale final --threads "$(nproc)"
  tar -C "$work" -czf "$out/scaling.tar.gz" scaling
  run_case fixed_default
  run_case adaptive_parallel_wait -adapt_interval 20 -adapt_remesh_parts 0 -adapt_overlap 0
elif [[ $PART == 5 ]]; then
  say "bench_remesh_scaling on $METRIC"
  mkdir -p "$work/scaling"
  scale graded --threads "$(nproc)"
  scale mmg_default --threads "$(nproc)" --serial 0 --frozen-gradation 2.3
  cp "$work/device.txt" "$work/scaling/"
  tar -C "$work" -czf "$out/scaling.tar.gz" scaling
  run_case fixed_default
  run_case adaptive_parallel_wait -adapt_interval 20 -adapt_remesh_parts 0 -adapt_overlap 0
  run_case adaptive_parallel_overlap -adapt_interval 20 -adapt_remesh_parts 0 -adapt_overlap 1
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
    pack two_gpus
  fi
fi
say done
cp "$work/calls.log" "$out/calls-part${PART:-1}.log"
