#!/usr/bin/env bash
# Issue 36's first levers on the GPU-resident core at 553 k tets, each measured on its own, from
# the repository root with the bundle in .gpu (foehn-mountainwave, foehn_cuda_runtime).
# Variants, alternated in ROUNDS rounds on one GPU (plain runs for time, then one counted run
# each for kernels and synchronisations, -count_cuda_calls):
#   before     the behaviour before this change (cold Picard starts, Jacobi's zero check)
#   defaults   warm Picard starts and no zero-diagonal check (the new defaults)
#   cheby      defaults + the projection by Chebyshev on [1/2, 5/2], 25 steps, no reductions
#   cheby_sr   cheby + single-reduction CG for the pressure
#   cheby_l1   cheby + one smoothing step per GAMG level
#   cheby_t05  cheby + GAMG threshold 0.05
# Run (call 2) on a tree where the projection was still CG by default; on later trees
# 'defaults' already has the GPU's Chebyshev projection, and the cheby* options repeat it.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
nvidia-smi -L > "$out/device.txt"
$r foehn_cuda_runtime --gtest_filter='CudaCallCounts*' 2>&1 | grep -E "OK|FAILED|Failure|Which is|^  " \
  > "$out/call_count_tests.txt"
cheby="-projection_ksp_type chebyshev -projection_ksp_chebyshev_eigenvalues 0.5,2.5 \
 -projection_ksp_norm_type none -projection_ksp_max_it 25"
declare -A variant=(
  [before]="$before_options"
  [defaults]=""
  [cheby]="$cheby"
  [cheby_sr]="$cheby -pressure_ksp_cg_single_reduction"
  [cheby_l1]="$cheby -pressure_mg_levels_ksp_max_it 1"
  [cheby_t05]="$cheby -pressure_pc_gamg_threshold 0.05"
)
order=(${VARIANTS:-before defaults cheby cheby_sr cheby_l1 cheby_t05})
run() {  # name round extra
  timeout 120 $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 ${variant[$1]} $3 \
    -output_dir /tmp/lv_$1_$2 < /dev/null 2>&1 | quiet > /tmp/lv_$1_$2.log
  echo "$1 round $2: exit ${PIPESTATUS[0]}, step $(grep "Total timestep duration" /tmp/lv_$1_$2.log | awk -F'|' '{print $3}') s, last line: $(grep -E '^ +10 ' /tmp/lv_$1_$2.log)" >> "$out/levers.txt"
}
for round in $(seq 1 ${ROUNDS:-2}); do
  for v in "${order[@]}"; do run $v $round ""; done
done
for v in "${order[@]}"; do
  run $v counted -count_cuda_calls
  cp /tmp/lv_${v}_counted/run.json "$out/run_${v}_counted.json"
  cp /tmp/lv_${v}_1/run.json "$out/run_${v}_1.json"
  cp /tmp/lv_${v}_1/sections_000010.h5 "$out/sections_${v}.h5" 2>/dev/null
  grep -A10 "^| System" /tmp/lv_${v}_counted.log > "$out/systems_${v}.md"
done
