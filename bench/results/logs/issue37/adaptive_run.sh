#!/usr/bin/env bash
# Issue 37 on the device, call A: the adaptive run of the main job's default case on one GPU
# (adapted every 20 steps, one hour) against the same case on its fixed mesh, with the sections
# for the comparison with linear theory. Builds nothing: run from the repository root with the
# bundle in .gpu (README.md beside this file):
#   bash bench/results/logs/issue37/adaptive_run.sh   # writes $OUT/results.tar.gz and the mesh
set -u
out=${OUT:?}
work=$(mktemp -d)
mw() { .gpu/run foehn-mountainwave "$@"; }
say() { echo "== $* ($(date +%T))" | tee -a "$work/calls.log"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >"$work/gpu.txt"
nproc >>"$work/gpu.txt"

say "adapt unit tests (remesh, transfer; device metric)"
.gpu/run foehn_adapt_remesh_tests >"$work/remesh_tests.log" 2>&1; echo "exit $?" >>"$work/remesh_tests.log"
.gpu/run foehn_adapt_device_tests >"$work/device_tests.log" 2>&1; echo "exit $?" >>"$work/device_tests.log"

common="-foehn_backend cuda -end_time ${END_TIME:-3600} -vtk 0 -output_interval 0"
say "fixed mesh"
mw $common -output_dir "$work/fixed" >"$work/fixed.log" 2>&1; echo "exit $?" >>"$work/fixed.log"
say "adaptive, every ${INTERVAL:-20} steps"
mw $common -adapt_interval "${INTERVAL:-20}" -output_dir "$work/adaptive" >"$work/adaptive.log" 2>&1
echo "exit $?" >>"$work/adaptive.log"
say done
# The mesh adapted at 2800 s, for the fixed-mesh validation (call B), beside the archive.
cp "$work/adaptive/adapted_mesh_000140.vtu" "$out/" 2>/dev/null
rm -f "$work"/*/*.vtu "$work"/*/mountainwave_mesh*.h5 "$work"/*/checkpoint_* "$work"/*/sections_0*
tar -C "$work" -czf "$out/results.tar.gz" .
