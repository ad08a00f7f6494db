#!/usr/bin/env bash
# Issue 36, second session, call 9 (one H100), bundle as for levers.sh: the remaining host
# waits, counted at 553 k tets, GPU-resident: single-reduction CG for the pressure; block Jacobi
# with ILU(0) (cuSPARSE triangular solves) for theta', qv and momentum instead of Jacobi; both.
# Then the step timed, this tree's defaults against each variant, alternated, ROUNDS rounds.
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/reductions.txt
nvidia-smi -L > "$res"
ilu=""
for system in theta qv momentum; do ilu+=" -${system}_pc_type bjacobi -${system}_sub_pc_type ilu"; done
declare -A variant=(
  [defaults]=""
  [single_reduction]="-pressure_ksp_cg_single_reduction"
  [ilu]="$ilu"
  [both]="-pressure_ksp_cg_single_reduction $ilu"
)
step() {  # name options...
  local name=$1; shift
  timeout 150 $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 "$@" \
    -output_dir /tmp/s_$name < /dev/null 2>&1 | quiet > /tmp/s_$name.log
  echo "$name: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/s_$name.log | awk -F'|' '{print $3}') s | $(grep -E '^ +10 ' /tmp/s_$name.log)" >> "$res"
}
for v in defaults single_reduction ilu both; do
  step ${v}_counted ${variant[$v]} -count_cuda_calls
  grep -A10 "^| System" /tmp/s_${v}_counted.log | grep -E "theta|qv|momentum|pressure" >> "$res"
  grep -iE "rror" /tmp/s_${v}_counted.log | head -2 >> "$res"
  python3 - /tmp/s_${v}_counted/run.json >> "$res" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["timed_steps"]["cuda_calls_per_step"]
print("  step: %.0f kernels, %.0f syncs" % (d["kernel_launches"], d["host_synchronizations"]))
PY
done
for round in $(seq 1 ${ROUNDS:-2}); do
  for v in defaults single_reduction ilu both; do step ${v}_$round ${variant[$v]}; done
done
