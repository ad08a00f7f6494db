#!/usr/bin/env bash
# Installs what Foehn needs from Debian's packages (only what is missing), then configures and
# builds it in ./build. Safe to run again: it installs nothing twice and rebuilds incrementally.
# Usage: scripts/setup.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(
  build-essential cmake pkg-config git
  petsc-dev libmetis-dev libhdf5-openmpi-dev libvtk9-dev libboost-graph-dev
  libnetcdf-dev librandom123-dev nlohmann-json3-dev libsundials-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  gmsh python3 python3-scipy python3-numpy python3-h5py python3-matplotlib
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# nvcc lives in /usr/local/cuda/bin when the CUDA toolkit is installed; CMake finds it there
# too, this only makes `nvcc` visible to the build's own checks.
[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >build-configure.log 2>&1 ||
  { cat build-configure.log; echo "setup: configure failed (log above)"; exit 1; }
cmake --build build -j "$jobs"
echo "setup: build ready in ./build"
