#!/usr/bin/env bash
# Builds the CUDA-enabled PETSc that Foehn's GPU-resident solves need, from PETSc's source on
# PyPI, into a prefix inside the checkout (.deps/, ignored by git). Prints the prefix as its last
# line. Everything PETSc links comes from Debian (OpenMPI with gfortran for the Fortran
# bindings, BLAS/LAPACK, METIS, HDF5, MUMPS + ScaLAPACK); PETSc's configure downloads
# nothing. A stamp of the version and the options decides whether an existing build is reused,
# so a second run costs a second; a changed version or option rebuilds (about 10 minutes on two
# cores). Called by scripts/setup.sh when FOEHN_PETSC is cuda (or auto and nvcc exists).
#
# Environment: FOEHN_PETSC_VERSION (default 3.26.1), FOEHN_PETSC_CUDA_ARCH (default 90),
# FOEHN_DEPS (default ./.deps).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version=${FOEHN_PETSC_VERSION:-3.26.1}
cuda_arch=${FOEHN_PETSC_CUDA_ARCH:-90}
deps=$(mkdir -p "${FOEHN_DEPS:-.deps}" && cd "${FOEHN_DEPS:-.deps}" && pwd)
prefix=$deps/petsc-$version-cuda
log=$deps/petsc-$version-build.log
say() { echo "build-petsc: $*" >&2; }

[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { say "nvcc not found: a CUDA PETSc needs the CUDA toolkit (or use FOEHN_PETSC=debian)"; exit 2; }
for tool in mpicc mpicxx mpif90; do
  command -v "$tool" >/dev/null || { say "$tool not found (apt-get install libopenmpi-dev gfortran)"; exit 2; }
done
lib=/usr/lib/$(gcc -print-multiarch)

options=(
  --with-cc=mpicc --with-cxx=mpicxx --with-fc=mpif90
  --with-cuda=1 --with-cudac=nvcc "--with-cuda-arch=$cuda_arch"
  --with-debugging=0 --with-64-bit-indices=0 --with-shared-libraries=1 --with-x=0
  COPTFLAGS=-O2 CXXOPTFLAGS=-O2 FOPTFLAGS=-O2 CUDAOPTFLAGS=-O2
  "--with-blaslapack-lib=[$lib/liblapack.so,$lib/libblas.so]"
  --with-metis-include=/usr/include "--with-metis-lib=$lib/libmetis.so"
  --with-hdf5-include=/usr/include/hdf5/openmpi "--with-hdf5-lib=$lib/hdf5/openmpi/libhdf5.so"
  # No hypre: PETSc 3.26's interface calls hypre functions that Debian's hypre 2.26 does not
  # have (hypre_ParAMGDataILUIterSetupOption, ...), and no GPU hypre builds with CUDA 13 from
  # what is reachable here. GAMG is the algebraic multigrid of this PETSc.
  "--with-scalapack-lib=$lib/libscalapack-openmpi.so"
  --with-mumps-include=/usr/include
  "--with-mumps-lib=[$lib/libdmumps.so,$lib/libmumps_common.so,$lib/libpord.so]"
)
stamp=$(printf '%s\n' "$version" "${options[@]}" "$(nvcc --version | tail -n 1)" | sha256sum | cut -c1-16)

# One build at a time (the two README commands may run side by side).
exec 9>"$deps/petsc.lock"
flock 9
if [[ -f $prefix/foehn-petsc.stamp && $(cat "$prefix/foehn-petsc.stamp") == "$stamp" ]]; then
  echo "$prefix"
  exit 0
fi

say "building PETSc $version with CUDA (sm_$cuda_arch) into $prefix; log: $log"
started=$SECONDS
tarball=$deps/downloads/petsc-$version.tar.gz
if [[ ! -f $tarball ]]; then
  python3 -m pip --version >/dev/null 2>&1 || { say "python3 -m pip is missing (apt-get install python3-pip)"; exit 2; }
  say "downloading the source from PyPI (petsc==$version)"
  python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$deps/downloads" \
    "petsc==$version" >>"$log" 2>&1 || { tail -n 20 "$log" >&2; say "download failed"; exit 1; }
fi
source_dir=$deps/src/petsc-$version
rm -rf "$source_dir" "$prefix"
mkdir -p "$deps/src"
tar -xzf "$tarball" -C "$deps/src"

fail() { tail -n 40 "$log" >&2; say "$1 failed (full log: $log)"; exit 1; }
(cd "$source_dir" && ./configure PETSC_ARCH=foehn-cuda "--prefix=$prefix" "${options[@]}") \
  >>"$log" 2>&1 || fail "configure"
say "configured in $((SECONDS - started)) s; compiling (about 10 minutes on two cores)"
(
  cd "$source_dir" &&
    make PETSC_DIR="$source_dir" PETSC_ARCH=foehn-cuda MAKE_NP="$(nproc)" all &&
    make PETSC_DIR="$source_dir" PETSC_ARCH=foehn-cuda install
) >>"$log" 2>&1 || fail "make"
[[ -f $prefix/lib/libpetsc.so ]] || fail "make install (no $prefix/lib/libpetsc.so)"
# The tutorials (60 MB) and the build tree are not needed to build against PETSc.
rm -rf "$prefix/share/petsc/examples" "$source_dir"
echo "$stamp" >"$prefix/foehn-petsc.stamp"
say "PETSc $version with CUDA ready in $((SECONDS - started)) s"
echo "$prefix"
