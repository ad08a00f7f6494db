#!/usr/bin/env bash
# On a GPU host: runs CMD (an mpirun command line) under the CUDA-aware Open MPI that
# scripts/setup-cuda-mpi.sh built here and bench/scaling/pack_cuda_mpi.sh packed into
# .cudampi/ (carried with the device call), inside .gpu/run's environment:
#   .gpu/run bench/scaling/with_cuda_mpi.sh mpirun -n 2 foehn-mountainwave ...
# Unpacked once into $CUDA_MPI_DIR (/tmp/foehn-cuda-mpi); scripts/cuda-mpi-env.sh then puts
# its mpirun and libmpi.so.40 first.
set -euo pipefail
dir=${CUDA_MPI_DIR:-/tmp/foehn-cuda-mpi}
if [[ ! -f $dir/.ok ]]; then
  mkdir -p "$dir"
  tar -C "$dir" -xJf .cudampi/openmpi-cuda.tar.xz
  touch "$dir/.ok"
fi
prefix=$(ls -d "$dir"/openmpi-*-cuda | head -n 1)
# shellcheck source=../../scripts/cuda-mpi-env.sh
source scripts/cuda-mpi-env.sh "$prefix"
exec "$@"
