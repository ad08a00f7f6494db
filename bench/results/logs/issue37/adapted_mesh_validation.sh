#!/usr/bin/env bash
# Issue 37 on the device, call B: the paper's fixed-mesh validation. A mesh adapted during the
# adaptive run (call A) is read with -mesh and run from t = 0 on the CPU and on the GPU: with
# deterministic assembly and the solves on the host (bitwise), and with the solves on the GPU
# and every system solved to 1e-13 in every Picard iteration. Builds nothing; the mesh is
# carried in MESH (default bench/results/logs/issue37/out/adapted_mesh_000140.vtu):
#   bash bench/results/logs/issue37/adapted_mesh_validation.sh   # writes $OUT/validation.tar.gz
set -u
out=${OUT:?}
work=$(mktemp -d)
mesh=${MESH:-bench/results/logs/issue37/out/adapted_mesh_000140.vtu}
mw() { .gpu/run foehn-mountainwave "$@"; }
say() { echo "== $* ($(date +%T))" | tee -a "$work/calls.log"; }
tight="-picard_early_rtol 0"
for p in theta qv qc qr momentum pressure projection; do
  tight+=" -${p}_ksp_rtol 1e-13 -${p}_ksp_max_it 5000"
done
from="-mesh $mesh -end_time ${END_TIME:-200} -vtk 0 -sections 0 -output_interval 0"
run() {  # name, options...
  local name=$1
  shift
  say "$name"
  mw $from "$@" -output_dir "$work/$name" >"$work/$name.log" 2>&1
  echo "exit $?" >>"$work/$name.log"
}
run cpu -foehn_backend cpu
run gpu_host -foehn_backend cuda -foehn_assembly deterministic -foehn_solves host
run cpu_tight $tight -foehn_backend cpu
run gpu_tight $tight -foehn_backend cuda
say done
rm -f "$work"/*/mountainwave_mesh*.h5
tar -C "$work" -czf "$out/validation.tar.gz" .
