#!/usr/bin/env bash
# Issue 36: the transport and momentum Krylov methods by their synchronisations: GMRES (2 waits
# per iteration: the Gram-Schmidt dots and the norm) against pipelined GMRES and IBiCGStab (one
# each), 553 k tets, one GPU, counted runs then timed alternation. Bundle in .gpu.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
res=$out/transport_krylov.txt
nvidia-smi -L > "$res"
for_all() { local o=""; for p in theta qv qc qr momentum; do o+=" -${p}_ksp_type $1"; done; echo "$o"; }
declare -A variant=([gmres]="" [pgmres]="$(for_all pgmres)" [ibcgs]="$(for_all ibcgs)")
run() {  # name variant extra
  timeout 120 $r foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 ${variant[$2]} $3 \
    -output_dir /tmp/tk_$1 < /dev/null 2>&1 | quiet > /tmp/tk_$1.log
  echo "$1: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/tk_$1.log | awk -F'|' '{print $3}') s | $(grep -E '^ +10 |rror' /tmp/tk_$1.log | head -2)" >> "$res"
}
for v in gmres pgmres ibcgs; do
  run ${v}_counted $v -count_cuda_calls
  grep -E "^\| (theta|qv|momentum) " /tmp/tk_${v}_counted.log >> "$res"
done
for round in 1 2; do for v in gmres pgmres ibcgs; do run ${v}_$round $v ""; done; done
