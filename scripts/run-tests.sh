#!/usr/bin/env bash
# README command two: set up and build, then run the whole test suite with CTest. GPU tests skip
# themselves where no CUDA device exists.
#
# Both PETSc builds stay tested: when the main build uses the CUDA PETSc (FOEHN_PETSC=cuda, the
# default where nvcc exists), the PETSc-facing part of Foehn (the glue, the multi-rank tests,
# the dynamical core; CPU backend) is also built against Debian's petsc-dev in
# ./build-debian-petsc and its tests run. FOEHN_TEST_DEBIAN_PETSC=0 skips that.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
# The tools users run (MUSICA, scikit-fem, cfchecker) from PyPI, and Debian's ParaView unpacked
# beside the system, for ctest -L realtools.
bash scripts/setup-real-tools.sh
bash scripts/setup-paraview.sh
jobs=$(nproc 2>/dev/null || echo 2)
status=0
# Files changed since the formatting baseline follow .clang-format (a failure fails the run,
# after the tests, so that one run reports both).
format_status=0
bash scripts/check-format.sh || format_status=$?
ctest --test-dir build --output-on-failure -j "$jobs" || status=$?
# On a GPU host with the CUDA-aware Open MPI (setup.sh builds it there): every multi-rank
# test of the GPU again under it (ctest -L mpi -L gpu), so both MPIs are tested where both exist.
cuda_mpi=$(bash scripts/setup-cuda-mpi.sh 2>/dev/null | tail -n 1) || cuda_mpi=
if [[ -n $cuda_mpi ]]; then
  echo "run-tests: the multi-rank tests again under the CUDA-aware Open MPI ($cuda_mpi)"
  (source scripts/cuda-mpi-env.sh "$cuda_mpi" && export FOEHN_TEST_MPIEXEC=$cuda_mpi/bin/mpiexec &&
    ctest --test-dir build --output-on-failure -L '^mpi$' -L '^gpu$' -j "$jobs") || status=$?
fi

if [[ ${FOEHN_TEST_DEBIAN_PETSC:-1} == 1 ]] && grep -q "^FOEHN_PETSC_DIR:PATH=." build/CMakeCache.txt; then
  echo "run-tests: the PETSc-facing tests against Debian's PETSc (build-debian-petsc)"
  mmg_dir=$(bash scripts/setup-mmg.sh | tail -n 1)  # unpacked by setup.sh: nothing to fetch
  cmake -S . -B build-debian-petsc -DCMAKE_BUILD_TYPE=Release -DFOEHN_PETSC_DIR= -DFOEHN_CUDA=OFF \
    "-DFOEHN_MMG_DIR=$mmg_dir" -DFOEHN_PYTHON=OFF \
    -DFOEHN_BUILD_BENCH=OFF -DFOEHN_TEST_SUBSET=petsc >build-debian-petsc-configure.log 2>&1 ||
    { cat build-debian-petsc-configure.log; exit 1; }
  cmake --build build-debian-petsc -j "$jobs" --target foehn_tests
  ctest --test-dir build-debian-petsc --output-on-failure -j "$jobs" || status=$?
fi
# The corpus replays of the fuzz targets run above (ctest -L fuzz). FOEHN_CI_FUZZ_SECONDS=N
# also builds the libFuzzer targets with clang, ASan and UBSan (build-fuzz: all of libfoehn
# instrumented, longer than the rest of the suite on two cores, hence off by default) and
# fuzzes every reader but vtu_reader for N seconds each (scripts/fuzz.sh, tests/fuzz/README.md):
# under ASan, VTK's own oversized `new` on a corrupt compressed-data header aborts within
# minutes (a normal build reports it as foehn::Error), which would fail every such run.
if [[ ${FOEHN_CI_FUZZ_SECONDS:-0} -gt 0 ]]; then
  bash scripts/fuzz.sh --time "$FOEHN_CI_FUZZ_SECONDS" msh_reader mechanism_reader met_reader \
    particle_reader checkpoint_reader || status=$?
fi
((status == 0)) && status=$format_status
exit "$status"
