#!/usr/bin/env bash
# Issue 36, second session, call 1: what the pressure's coarse solve is, and what a looser pressure
# tolerance or a cuSPARSE coarse LU changes (553 k tets, one GPU, GPU-resident, counted runs).
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/probe.txt
nvidia-smi -L > "$res"
declare -A variant=(
  [defaults]="-pressure_ksp_view ascii:$out/pressure_ksp_view.txt"
  [coarse_cusparse]="-pressure_mg_coarse_sub_pc_factor_mat_solver_type cusparse"
  [coarse_petsc]="-pressure_mg_coarse_sub_pc_factor_mat_solver_type petsc"
  [pressure_rtol_1e-6]="-pressure_ksp_rtol 1e-6"
  [pressure_rtol_1e-4]="-pressure_ksp_rtol 1e-4"
  [all_rtol_1e-6]="-pressure_ksp_rtol 1e-6 -theta_ksp_rtol 1e-6 -qv_ksp_rtol 1e-6 -momentum_ksp_rtol 1e-6"
)
for v in defaults coarse_cusparse coarse_petsc pressure_rtol_1e-6 pressure_rtol_1e-4 all_rtol_1e-6; do
  timeout 120 $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 -count_cuda_calls \
    ${variant[$v]} -output_dir /tmp/pr_$v < /dev/null 2>&1 | quiet > /tmp/pr_$v.log
  echo "== $v: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/pr_$v.log | awk -F'|' '{print $3}') s" >> "$res"
  grep -E "^\| (pressure|theta|qv|momentum|projection) " /tmp/pr_$v.log >> "$res"
  grep -iE "rror" /tmp/pr_$v.log | head -3 >> "$res"
  python3 - /tmp/pr_$v/run.json >> "$res" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["timed_steps"]["cuda_calls_per_step"]
print("  step: %.0f kernels, %.0f syncs" % (d["kernel_launches"], d["host_synchronizations"]))
PY
done
