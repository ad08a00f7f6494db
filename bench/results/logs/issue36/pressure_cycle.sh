#!/usr/bin/env bash
# Issue 36: the pressure V-cycle's kernels, synchronisations and time per step at 553 k tets, one
# GPU, GPU-resident, under GAMG options (each a counted run, -count_cuda_calls; the pressure row
# of the system table and the step's totals). From the repository root, bundle in .gpu.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
res=$out/pressure_cycle.txt
nvidia-smi -L > "$res"
declare -A variant=(
  [defaults]=""
  [coarse_eq_1000]="-pressure_pc_gamg_coarse_eq_limit 1000"
  [coarse_eq_10000]="-pressure_pc_gamg_coarse_eq_limit 10000"
  [unsmoothed]="-pressure_pc_gamg_agg_nsmooths 0"
  [levels_3]="-pressure_pc_mg_levels 3"
  [cheby_degree_1_up_2_down]="-pressure_mg_levels_ksp_max_it 1 -pressure_pc_mg_distinct_smoothup -pressure_mg_levels_up_ksp_max_it 2"
  [coarse_jacobi_cheby]="-pressure_mg_coarse_ksp_type chebyshev -pressure_mg_coarse_ksp_max_it 20 -pressure_mg_coarse_pc_type jacobi -pressure_mg_coarse_ksp_chebyshev_esteig 0,0.1,0,1.1"
)
for v in defaults coarse_eq_1000 coarse_eq_10000 unsmoothed levels_3 cheby_degree_1_up_2_down coarse_jacobi_cheby; do
  timeout 150 $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 -count_cuda_calls \
    ${variant[$v]} -pressure_ksp_view ascii:/tmp/pv_$v.txt -output_dir /tmp/pc_$v < /dev/null 2>&1 | quiet > /tmp/pc_$v.log
  echo "== $v: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/pc_$v.log | awk -F'|' '{print $3}') s, levels $(grep -m1 "levels=" /tmp/pv_$v.txt)" >> "$res"
  grep -E "^\| pressure " /tmp/pc_$v.log >> "$res"
  grep -E "^ +10 |rror" /tmp/pc_$v.log | head -3 >> "$res"
  python3 - "$v" /tmp/pc_$v/run.json >> "$res" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))["timed_steps"]["cuda_calls_per_step"]
print("  step: %.0f kernels, %.0f syncs" % (d["kernel_launches"], d["host_synchronizations"]))
PY
done
grep -B2 -A40 "Multigrid" /tmp/pv_defaults.txt | head -60 > "$out/pressure_ksp_view_defaults.txt"
