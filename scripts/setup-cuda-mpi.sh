#!/usr/bin/env bash
# Builds a CUDA-aware Open MPI from Debian's own source package of the Open MPI it ships (4.1.4,
# the ABI of Debian's libmpi.so.40, which Debian's HDF5, MUMPS, ScaLAPACK and the PETSc builds
# link), into .deps/openmpi-<version>-cuda. Nothing in the system changes: the source comes
# through a private apt sources list and state folder, and the build is used by setting
# PATH, LD_LIBRARY_PATH and OPAL_PREFIX at run time (scripts/cuda-mpi-env.sh), under the same
# binaries that were built against Debian's Open MPI. Prints the prefix as its last line, or an
# empty line where it is not built (no nvcc, no GPU and not asked for, or no Debian source
# reachable): callers then keep Debian's Open MPI.
#
# When: FOEHN_CUDA_MPI=auto (default) builds it where nvcc is found AND a GPU is present
# (nvidia-smi lists one): a CUDA-aware MPI only changes anything on a GPU host, and the build
# costs 15-20 minutes on two cores. FOEHN_CUDA_MPI=1 builds it wherever nvcc is found (a login
# node without GPUs that prepares a GPU run); FOEHN_CUDA_MPI=0 never.
#
# What it enables (ompi_info): common:cuda, btl:smcuda (CUDA IPC between the ranks of a host),
# coll:cuda, the `cuda` MPI extension (MPIX_Query_cuda_support), the Fortran bindings (without
# them Debian's libmpi_mpifh.so.40, which PETSc's Fortran bindings pull in, fails to load), and
# UCX with CUDA transports (PyPI's libucx-cu13, for messages between hosts) where PyPI is
# reachable. A stamp of the version and options decides whether a build is reused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { echo "setup-cuda-mpi: $*" >&2; }

[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"
want=${FOEHN_CUDA_MPI:-auto}
case $want in
  0) echo; exit 0 ;;
  1) ;;
  auto)
    if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      say "no GPU here: Debian's Open MPI is kept (FOEHN_CUDA_MPI=1 builds the CUDA-aware one anyway)"
      echo
      exit 0
    fi ;;
  *) say "FOEHN_CUDA_MPI=$want: expected auto, 0 or 1"; exit 2 ;;
esac
command -v nvcc >/dev/null || { say "nvcc not found: no CUDA-aware Open MPI"; echo; exit 0; }
cuda_home=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")

deps=$(mkdir -p "${FOEHN_DEPS:-.deps}" && cd "${FOEHN_DEPS:-.deps}" && pwd)
# The version of Debian's runtime library, which the build must match.
version=$(dpkg-query -W -f='${Version}' libopenmpi3 2>/dev/null | sed 's/-.*//' || true)
[[ -n $version ]] || { say "Debian's libopenmpi3 is not installed: nothing to match"; echo; exit 0; }
prefix=$deps/openmpi-$version-cuda
log=$deps/openmpi-$version-cuda-build.log
ucx=$deps/ucx-cu13

exec 9>"$deps/openmpi-cuda.lock"
flock 9

# UCX with CUDA transports from PyPI (headers and libraries inside the wheel).
ucx_version=1.22.0
if [[ ! -f $ucx/.ok ]] && python3 -m pip --version >/dev/null 2>&1; then
  rm -rf "$ucx" "$deps/downloads/ucx"
  if python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$deps/downloads/ucx" \
    "libucx-cu13==$ucx_version" >>"$log" 2>&1; then
    mkdir -p "$ucx"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
      "$(ls "$deps"/downloads/ucx/libucx_cu13-*.whl | head -n 1)" "$ucx"
    # The wheel's libtool archives name the folders it was built in: libtool links by -l
    # without them.
    find "$ucx" -name '*.la' -delete
    touch "$ucx/.ok"
  else
    say "PyPI's libucx-cu13 is not reachable: built without UCX (one host only)"
  fi
fi
ucx_root=
ucp_header=
[[ -f $ucx/.ok ]] && ucp_header=$(find "$ucx" -path '*/include/ucp/api/ucp.h' | head -n 1)
[[ -n $ucp_header ]] && ucx_root=$(cd "$(dirname "$ucp_header")/../../.." && pwd)

options=(
  "--prefix=$prefix" "--with-cuda=$cuda_home" --enable-mpi-fortran=usempif08
  --with-hwloc=external --with-libevent=external --with-pmix=internal
  --disable-static --enable-shared --without-verbs --without-ofi --disable-oshmem
  ${ucx_root:+"--with-ucx=$ucx_root"}
)
stamp=$(printf '%s\n' "$version" "${options[@]}" "$(nvcc --version | tail -n 1)" | sha256sum | cut -c1-16)
if [[ -f $prefix/foehn-mpi.stamp && $(cat "$prefix/foehn-mpi.stamp") == "$stamp" ]]; then
  echo "$prefix"
  exit 0
fi
# A build that failed with these options is not tried again at every run (15-20 minutes): the
# runs keep Debian's Open MPI and say so; removing the marker tries again.
failed_marker=$deps/openmpi-$version-cuda.failed
if [[ -f $failed_marker && $(cat "$failed_marker") == "$stamp" ]]; then
  say "an earlier build failed (log: $log; remove $failed_marker to try again): Debian's Open MPI is kept"
  echo
  exit 0
fi

started=$SECONDS
say "building Open MPI $version with CUDA into $prefix (15-20 minutes on two cores); log: $log"
src=$deps/src/openmpi-cuda
rm -rf "$src" "$prefix"
mkdir -p "$src"
# Debian's source package through a private sources list: the system's apt state is untouched.
# The mirror is the one the system's own sources name.
mirror=$( (grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}';
           grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}') | grep -v security | head -n 1 || true)
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
[[ -n $mirror ]] || { say "no Debian mirror named in /etc/apt: no source package"; echo; exit 0; }
apt_state=$deps/apt-source
mkdir -p "$apt_state/lists/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
  >"$apt_state/sources.list"
apt_options=(-o "Dir::Etc::SourceList=$apt_state/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt_state/lists")
if ! (apt-get "${apt_options[@]}" update -qq && cd "$src" &&
  apt-get "${apt_options[@]}" source --download-only "openmpi=$(dpkg-query -W -f='${source:Version}' libopenmpi3)") \
  >>"$log" 2>&1; then
  tail -n 10 "$log" >&2
  say "Debian's openmpi source package is not reachable: Debian's Open MPI is kept"
  echo
  exit 0
fi
# A failure from here on keeps Debian's Open MPI (exit 0, an empty line) and is remembered.
fail() {
  tail -n 40 "$log" >&2
  say "$1 failed (full log: $log): Debian's Open MPI is kept"
  echo "$stamp" >"$failed_marker"
  echo
  exit 0
}
orig=$(ls "$src"/openmpi_"$version".orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n 1 || true)
[[ -n $orig ]] || fail "finding openmpi_$version.orig.tar.* in the source package"
tar -xf "$orig" -C "$src" || fail "unpacking $orig"
(cd "$src/openmpi-$version" && ./configure "${options[@]}") >>"$log" 2>&1 || fail configure
(cd "$src/openmpi-$version" && make -j "$(nproc)" && make install) >>"$log" 2>&1 || fail make
# UCX's run-time libraries beside Open MPI's, by their sonames only (the wheel holds each library
# three times, as .so, .so.0 and .so.0.0.0, and static archives), keeping UCX's module folder
# (lib/ucx/), so the prefix is all a run needs (scripts/cuda-mpi-env.sh).
if [[ -n $ucx_root ]]; then
  mkdir -p "$prefix/lib/ucx"
  { cp "$ucx_root"/lib/lib*.so.[0-9] "$prefix/lib/" &&
    cp "$ucx_root"/lib/ucx/lib*.so.[0-9] "$prefix/lib/ucx/"; } || fail "copying UCX's libraries"
  rm -f "$prefix"/lib/ucx/libucx_perftest*
fi
"$prefix/bin/ompi_info" --parsable --all 2>/dev/null |
  grep -q 'mpi_built_with_cuda_support:value:true' || fail "the CUDA check of ompi_info"
rm -rf "$src"
echo "$stamp" >"$prefix/foehn-mpi.stamp"
say "Open MPI $version with CUDA ready in $((SECONDS - started)) s"
echo "$prefix"
