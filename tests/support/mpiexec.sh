#!/bin/sh
# The launcher of the multi-rank tests: the mpiexec CMake found (the first argument), unless
# FOEHN_TEST_MPIEXEC names another, as scripts/run-tests.sh does to run them again under the
# CUDA-aware Open MPI of a GPU host (each Open MPI starts its ranks with its own daemons).
launcher=$1
shift
exec "${FOEHN_TEST_MPIEXEC:-$launcher}" "$@"
