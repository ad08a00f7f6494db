#!/usr/bin/env bash
# Prints how many MPI ranks Foehn's launcher starts on this host for a mountain-wave case of
# TETS tets (the placement policy, docs/scaling.md):
# - GPU host (the build has the CUDA backend; CUDA_VISIBLE_DEVICES counted when set): one rank
#   per GPU, never more, since ranks sharing a GPU take turns on it and wait for each other in
#   every Krylov iteration (4 ranks on 2 GPUs: 5.4x slower per step than 1 rank on 1 GPU). Below
#   FOEHN_TETS_PER_GPU tets per GPU (default: where a second GPU was measured to start paying)
#   fewer GPUs are faster, so only as many GPUs as the case fills are used: at least one.
# - no GPU: one rank per core, at most four (the CPU-only default case gains little past four).
# FOEHN_RANKS overrides all of it; FOEHN_CUDA_BACKEND=1|0 says whether the build has the CUDA
# backend where its CMake cache is not at hand (a packed copy on a GPU host).
# usage: scripts/ranks-for-host.sh [build-dir] [tets]
set -euo pipefail
build=${1:-build}
tets=${2:-0}
per_gpu=${FOEHN_TETS_PER_GPU:-10000000}
positive='^[1-9][0-9]{0,17}$'
if [[ -n ${FOEHN_RANKS:-} ]]; then
  [[ $FOEHN_RANKS =~ ^[1-9][0-9]{0,4}$ ]] ||
    { echo "ranks-for-host: FOEHN_RANKS='$FOEHN_RANKS' is not a rank count (1..99999)" >&2; exit 2; }
  echo "$FOEHN_RANKS"
  exit 0
fi
[[ $tets == 0 || $tets =~ $positive ]] ||
  { echo "ranks-for-host: '$tets' is not a tet count" >&2; exit 2; }
[[ $per_gpu =~ $positive ]] ||
  { echo "ranks-for-host: FOEHN_TETS_PER_GPU='$per_gpu' is not a tet count" >&2; exit 2; }
gpus=0
cuda_backend=${FOEHN_CUDA_BACKEND:-}
if [[ -z $cuda_backend ]]; then
  cuda_backend=0
  grep -q "^FOEHN_HAVE_CUDA_BACKEND:INTERNAL=1" "$build/CMakeCache.txt" 2>/dev/null && cuda_backend=1
fi
if [[ $cuda_backend == 1 ]]; then
  if [[ -n ${CUDA_VISIBLE_DEVICES+set} ]]; then
    # "0,1" -> 2; "" or "-1" hide every GPU.
    IFS=, read -r -a visible <<<"$CUDA_VISIBLE_DEVICES"
    for id in "${visible[@]}"; do
      [[ $id =~ ^-1$ ]] && break
      [[ -n $id ]] && gpus=$((gpus + 1))
    done
  elif command -v nvidia-smi >/dev/null; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU " || true)
  fi
fi
if ((gpus > 0)); then
  wanted=$((tets / per_gpu))
  ((wanted < 1)) && wanted=1
  ranks=$((wanted < gpus ? wanted : gpus))
  echo "$ranks"
else
  cores=$(nproc 2>/dev/null || echo 1)
  echo $((cores > 4 ? 4 : cores))
fi
