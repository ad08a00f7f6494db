#!/usr/bin/env bash
# Runs a command (one MPI rank) with PyPI's CUDA-enabled UCX (libucx-cu13) in front of Debian's,
# so that Open MPI's UCX transport can move GPU buffers itself (cuda_ipc over NVLink within a
# host, cuda_copy otherwise): what PETSc's -use_gpu_aware_mpi 1 needs from MPI.
#   mpirun -n 2 bench/scaling/with_cuda_ucx.sh foehn-mountainwave ... -use_gpu_aware_mpi 1
# FOEHN_UCX_DIR: the folder of libucp.so.0 & co (default: .ucx in the repository root, carried
# to the GPU host). Made from the wheel: pip download --no-deps libucx-cu13, unzip it, copy
# libucx/lib/lib{ucm,ucp,ucs,uct,ucs_signal}.so.0 into .ucx and libucx/lib/ucx/lib{ucm_cuda,
# uct_cma,uct_cuda}.so.0 into .ucx/ucx. Open MPI 4.1's collectives still cannot read GPU
# buffers (PETSc's GPU-aware check fails on its MPI_Allreduce): libfoehn_device_collectives
# (FOEHN_DEVICE_COLLECTIVES, default .ucx/libfoehn_device_collectives.so) is preloaded to stage
# those through the host.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=${FOEHN_UCX_DIR:-$root/.ucx}
[[ -f $dir/libucp.so.0 ]] || { echo "with_cuda_ucx: no libucp.so.0 in $dir" >&2; exit 2; }
export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export UCX_MODULE_DIR=$dir/ucx
collectives=${FOEHN_DEVICE_COLLECTIVES:-$dir/libfoehn_device_collectives.so}
[[ -f $collectives ]] || { echo "with_cuda_ucx: no $collectives" >&2; exit 2; }
export LD_PRELOAD=$collectives${LD_PRELOAD:+:$LD_PRELOAD}
# Open MPI 4.1 uses its UCX transport only where it finds network devices, unless told any.
export OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any
export OMPI_MCA_osc=ucx
exec "$@"
