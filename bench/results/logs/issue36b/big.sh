#!/usr/bin/env bash
# Issue 36, second session, call 4 (one H100): 5 M tets, GPU-resident, 6 steps (3 timed), before
# (63256ff) against this tree, then this tree counted. Bundle as for levers.sh.
source "$(dirname "${BASH_SOURCE[0]}")/../issue36/common.sh"
res=$out/big.txt
nvidia-smi -L > "$res"
big() {  # name program options...
  local name=$1 program=$2; shift 2
  timeout 200 $r $program -mesh_tets 5000000 -foehn_backend cuda -foehn_solves device \
    -max_steps 6 -end_time 3600 -timing_warmup 3 -vtk 0 -sections 0 -output_interval 0 "$@" \
    -output_dir /tmp/big_$name < /dev/null 2>&1 | quiet > /tmp/big_$name.log
  echo "5M $name: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/big_$name.log | awk -F'|' '{print $3}') s" >> "$res"
  grep -E "^ +[1-6] |rror" /tmp/big_$name.log | head -8 >> "$res"
}
big before foehn-mountainwave-before
big now foehn-mountainwave
big now_counted foehn-mountainwave -count_cuda_calls
grep -A10 "^| System" /tmp/big_now_counted.log >> "$res"
