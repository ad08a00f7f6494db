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
for v in defaults single_reduction ilu both; do
  step ${v}_counted foehn-mountainwave ${variant[$v]} -count_cuda_calls
  counts ${v}_counted
done
for round in $(seq 1 ${ROUNDS:-2}); do
  for v in defaults single_reduction ilu both; do step ${v}_$round foehn-mountainwave ${variant[$v]}; done
done
