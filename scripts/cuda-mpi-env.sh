#!/usr/bin/env bash
# Sourced: `source scripts/cuda-mpi-env.sh <prefix>` makes the CUDA-aware Open MPI built by
# scripts/setup-cuda-mpi.sh the MPI of this shell: its mpiexec first on PATH, its libmpi.so.40
# (the ABI of Debian's, which Foehn and PETSc were linked against) and UCX's libraries first on
# LD_LIBRARY_PATH, and OPAL_PREFIX where it now lives (the prefix may have moved, as on a GPU host
# that received a packed copy). PMIx and component paths of another Open MPI are dropped: each
# Open MPI starts its ranks with its own.
prefix=${1:?usage: source scripts/cuda-mpi-env.sh <CUDA-aware Open MPI prefix>}
if [[ ! -x $prefix/bin/mpiexec ]]; then
  echo "cuda-mpi-env: $prefix/bin/mpiexec is missing" >&2
  return 2 2>/dev/null || exit 2
fi
prefix=$(cd "$prefix" && pwd)
export OPAL_PREFIX=$prefix
export PATH=$prefix/bin:$PATH
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset PMIX_INSTALL_PREFIX PMIX_MCA_mca_base_component_path OMPI_MCA_mca_base_component_path
# Between the ranks of one host: shared memory with CUDA IPC (btl smcuda) carries device
# buffers; UCX (pml ucx) takes over where it finds a network it supports.
export OMPI_MCA_opal_cuda_support=1
