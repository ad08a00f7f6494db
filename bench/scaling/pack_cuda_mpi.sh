#!/usr/bin/env bash
# Packs the CUDA-aware Open MPI of scripts/setup-cuda-mpi.sh (FOEHN_CUDA_MPI=1 builds it on a
# machine without GPUs) into .cudampi/openmpi-cuda.tar.xz for a device call (carry .cudampi;
# bench/scaling/with_cuda_mpi.sh unpacks it there). Its static archives, headers, manual pages
# and Fortran modules stay behind: a run needs none of them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
prefix=$(FOEHN_CUDA_MPI=1 bash scripts/setup-cuda-mpi.sh | tail -n 1)
[[ -n $prefix ]] || { echo "pack_cuda_mpi: no CUDA-aware Open MPI was built" >&2; exit 1; }
mkdir -p .cudampi
tar -C "$(dirname "$prefix")" --exclude='*.a' --exclude='*.la' --exclude=include \
  --exclude=share/man --exclude='*.mod' -cf - "$(basename "$prefix")" | xz -6 -T0 \
  >.cudampi/openmpi-cuda.tar.xz
du -h .cudampi/openmpi-cuda.tar.xz
