#!/usr/bin/env bash
# scripts/cuda-mpi-env.sh (docs/clusters.md's `source scripts/cuda-mpi-env.sh <prefix>`): a
# prefix with bin/mpiexec becomes this shell's MPI (PATH, LD_LIBRARY_PATH, OPAL_PREFIX first; an
# other Open MPI's PMIx and component paths dropped), a prefix without one is refused with exit 2;
# scripts/setup-cuda-mpi.sh: FOEHN_CUDA_MPI=0 builds nothing, a bad value is refused with exit 2,
# and without a GPU (auto) it keeps Debian's Open MPI: an empty last line either way.
# Prints "N passed, M failed".
set -uo pipefail
env_script=${1:?usage: cuda_mpi_scripts_test.sh scripts/cuda-mpi-env.sh scripts/setup-cuda-mpi.sh}
setup_script=${2:?usage: cuda_mpi_scripts_test.sh scripts/cuda-mpi-env.sh scripts/setup-cuda-mpi.sh}
passed=0 failed=0
check() { # description, command status (0 = as expected)
  if [[ $2 == 0 ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $1"
  fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/mpi/bin" "$work/mpi/lib"
printf '#!/bin/sh\necho fake mpiexec\n' >"$work/mpi/bin/mpiexec"
chmod +x "$work/mpi/bin/mpiexec"

out=$(env PMIX_INSTALL_PREFIX=/elsewhere OMPI_MCA_mca_base_component_path=/elsewhere \
  LD_LIBRARY_PATH=/old bash -c "source '$env_script' '$work/mpi' && echo \"\$OPAL_PREFIX|\$(command -v mpiexec)|\$LD_LIBRARY_PATH|\${PMIX_INSTALL_PREFIX-unset}|\${OMPI_MCA_mca_base_component_path-unset}\"")
check "a prefix becomes the MPI ($out)" \
  "$([[ $out == "$work/mpi|$work/mpi/bin/mpiexec|$work/mpi/lib:/old|unset|unset" ]]; echo $?)"

message=$(bash -c "source '$env_script' '$work/missing'" 2>&1)
status=$?
check "a prefix without mpiexec is refused (exit $status: $message)" \
  "$([[ $status == 2 && $message == *"mpiexec is missing"* ]]; echo $?)"

last=$(FOEHN_CUDA_MPI=0 FOEHN_DEPS="$work/deps" bash "$setup_script" 2>/dev/null | tail -n 1)
check "FOEHN_CUDA_MPI=0 builds nothing ('$last')" "$([[ -z $last && ! -e $work/deps ]]; echo $?)"

FOEHN_CUDA_MPI=sometimes FOEHN_DEPS="$work/deps" bash "$setup_script" >/dev/null 2>"$work/err"
status=$?
check "a bad FOEHN_CUDA_MPI is refused (exit $status)" \
  "$([[ $status == 2 ]] && grep -q "FOEHN_CUDA_MPI=sometimes" "$work/err"; echo $?)"

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  last=$(FOEHN_CUDA_MPI=auto FOEHN_DEPS="$work/deps" bash "$setup_script" 2>"$work/err" | tail -n 1)
  check "no GPU: Debian's Open MPI kept ('$last')" \
    "$([[ -z $last ]] && grep -q "no GPU here" "$work/err"; echo $?)"
fi
echo "$passed passed, $failed failed"
((failed == 0))
