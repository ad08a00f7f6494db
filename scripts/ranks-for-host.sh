#!/usr/bin/env bash
# Prints how many MPI ranks Foehn's launcher starts on this host: one rank per GPU when the
# build has the CUDA backend and the host has GPUs (CUDA_VISIBLE_DEVICES counted when set),
# else one rank per core, at most four (the CPU-only default case gains little past four).
# FOEHN_RANKS overrides both; FOEHN_CUDA_BACKEND=1|0 says whether the build has the CUDA backend
# where its CMake cache is not at hand (a packed copy on a GPU host). Ranks sharing one GPU time-slice it and wait for each other in
# every Krylov iteration: measured 5.8x slower per step than one rank per GPU on a two-GPU host
# (docs/scaling.md), which is why a GPU host gets exactly one rank per GPU.
# usage: scripts/ranks-for-host.sh [build-dir]
set -euo pipefail
build=${1:-build}
if [[ -n ${FOEHN_RANKS:-} ]]; then
  [[ $FOEHN_RANKS =~ ^[1-9][0-9]{0,4}$ ]] ||
    { echo "ranks-for-host: FOEHN_RANKS='$FOEHN_RANKS' is not a rank count (1..99999)" >&2; exit 2; }
  echo "$FOEHN_RANKS"
  exit 0
fi
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
  echo "$gpus"
else
  cores=$(nproc 2>/dev/null || echo 1)
  echo $((cores > 4 ? 4 : cores))
fi
