#!/usr/bin/env bash
# scripts/ranks-for-host.sh, the launcher's placement policy: one rank per GPU, only as many GPUs
# as the case fills (FOEHN_TETS_PER_GPU tets each), at least one; up to four ranks without a GPU
# or without the CUDA backend; FOEHN_RANKS wins; bad counts refused with exit 2.
# Prints "N passed, M failed".
set -uo pipefail
script=${1:?usage: ranks_for_host_test.sh path/to/ranks-for-host.sh}
passed=0 failed=0
expect() { # expected-output expected-status env... -- args...
  local want=$1 want_status=$2; shift 2
  local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  shift
  local got status
  got=$(env -u FOEHN_RANKS -u FOEHN_TETS_PER_GPU "${env[@]}" bash "$script" /nonexistent "$@" 2>/dev/null)
  status=$?
  if [[ $got == "$want" && $status == "$want_status" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: ${env[*]} $* -> '$got' (exit $status), expected '$want' (exit $want_status)"
  fi
}
cores=$(nproc)
cpu_ranks=$((cores > 4 ? 4 : cores))
gpus2=(FOEHN_CUDA_BACKEND=1 CUDA_VISIBLE_DEVICES=0,1)
gpus4=(FOEHN_CUDA_BACKEND=1 CUDA_VISIBLE_DEVICES=0,1,2,3)
expect 1 0 "${gpus2[@]}" -- 276480            # the default case fills one GPU
expect 1 0 "${gpus2[@]}" -- 15000000          # below two GPUs' worth
expect 2 0 "${gpus2[@]}" -- 20000000          # two GPUs' worth
expect 2 0 "${gpus2[@]}" FOEHN_TETS_PER_GPU=5000000 -- 15000000
expect 2 0 "${gpus4[@]}" -- 20000000          # only as many GPUs as the case fills
expect 3 0 "${gpus4[@]}" -- 30000000
expect 4 0 "${gpus4[@]}" -- 80000000
expect 2 0 "${gpus2[@]}" -- 900000000         # never more ranks than GPUs
expect 2 0 "${gpus2[@]}" FOEHN_TETS_PER_GPU=100000 -- 276480
expect 1 0 FOEHN_CUDA_BACKEND=1 CUDA_VISIBLE_DEVICES=3 -- 900000000
expect "$cpu_ranks" 0 FOEHN_CUDA_BACKEND=1 CUDA_VISIBLE_DEVICES=-1 -- 900000000  # GPUs hidden
expect "$cpu_ranks" 0 FOEHN_CUDA_BACKEND=1 CUDA_VISIBLE_DEVICES= -- 900000000
expect "$cpu_ranks" 0 FOEHN_CUDA_BACKEND=0 CUDA_VISIBLE_DEVICES=0,1 -- 900000000  # no backend
expect 7 0 "${gpus2[@]}" FOEHN_RANKS=7 -- 276480
expect "" 2 "${gpus2[@]}" FOEHN_RANKS=0 -- 276480
expect "" 2 "${gpus2[@]}" FOEHN_RANKS=2x -- 276480
expect "" 2 "${gpus2[@]}" -- -5
expect "" 2 "${gpus2[@]}" FOEHN_TETS_PER_GPU=0 -- 276480
echo "$passed passed, $failed failed"
((failed == 0))
