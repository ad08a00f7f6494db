#!/usr/bin/env bash
# README command one: set up and build, then run Foehn's main job, the Mountainwave3D
# dynamical core, on its built-in default case (a 48 x 48 x 20-cell graded mesh, one hour of flow),
# with one MPI rank per GPU where the machine has GPUs, as many GPUs as the case fills (the
# placement policy, docs/scaling.md), else one rank per core up to four. Writes into
# ./out: the .pvd/.pvtu series, HDF5 sections and checkpoints, the Table-10 timing table, and
# the comparison with steady linear mountain-wave theory (table, JSON and PNG plots of w).
# Extra arguments go to foehn-mountainwave (e.g. -mesh_tets 554394 for the published size,
# -end_time 7200, -foehn_backend cpu); -help lists them all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
mkdir -p out
# The case's size decides how many GPUs it fills (-mesh_tets N or -mesh_cells a,b,c; the
# default mesh has 276,480 tets; a -mesh file counts as the default's size).
tets=276480
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
  case ${args[i]} in
    -mesh_tets) [[ ${args[i + 1]} =~ ^[0-9]+$ ]] && tets=${args[i + 1]} ;;
    -mesh_cells)
      IFS=, read -r cx cy cz <<<"${args[i + 1]}"
      [[ $cx$cy$cz =~ ^[0-9]+$ ]] && tets=$((6 * cx * cy * cz)) ;;
  esac
done
ranks=$(bash scripts/ranks-for-host.sh build "$tets")
# On a GPU host the CUDA-aware Open MPI that setup.sh built carries device buffers between the
# ranks (foehn-mountainwave asks the MPI and says which route its log's "MPI:" line takes).
cuda_mpi=$(bash scripts/setup-cuda-mpi.sh 2>/dev/null | tail -n 1) || cuda_mpi=
if [[ -n $cuda_mpi ]]; then
  # shellcheck source=scripts/cuda-mpi-env.sh
  source scripts/cuda-mpi-env.sh "$cuda_mpi"
  echo "run-main: the CUDA-aware Open MPI in $cuda_mpi"
fi
echo "run-main: $ranks MPI rank(s) for about $tets tets (scripts/ranks-for-host.sh, docs/scaling.md)"
launcher=(mpiexec -n "$ranks" --oversubscribe --bind-to none)
[[ $(id -u) == 0 ]] && launcher+=(--allow-run-as-root)
"${launcher[@]}" build/bin/foehn-mountainwave -output_dir out -output_interval 1200 "$@"
# The comparison with linear theory (exit code 1 only means a threshold was missed: report it,
# do not fail the job).
status=0
/usr/bin/python3 validation/linear_theory/compare_to_linear_theory.py \
  --model out/sections_latest.h5 --out out/linear_theory || status=$?
if (( status == 1 )); then
  echo "run-main: the model is outside the linear-theory thresholds at this resolution (see out/linear_theory/)"
elif (( status != 0 )); then
  exit "$status"
fi
echo "run-main: outputs in $(pwd)/out (open out/mountainwave.pvd in ParaView)"
