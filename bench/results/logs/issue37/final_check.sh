#!/usr/bin/env bash
# Issue 37 on the device, call F: the code after the review's fixes. The remesh and transfer
# tests (the signal handlers kept across Mmg among them), the GPU metric and location tests
# with compute-sanitizer's memcheck, and the adaptive run on the GPU (the default case, 1200 s,
# adapted every 20 steps). Builds nothing:
#   bash bench/results/logs/issue37/final_check.sh   # writes $OUT/results_f.tar.gz
set -u
out=${OUT:?}
work=$(mktemp -d)
say() { echo "== $* ($(date +%T))" | tee -a "$work/calls.log"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >"$work/gpu.txt"
say "remesh tests"
.gpu/run foehn_adapt_remesh_tests >"$work/remesh_tests.log" 2>&1
echo "exit $?" >>"$work/remesh_tests.log"
say "device tests"
.gpu/run foehn_adapt_device_metric_tests >"$work/device_tests.log" 2>&1
echo "exit $?" >>"$work/device_tests.log"
say "memcheck"
.gpu/run compute-sanitizer --tool memcheck foehn_adapt_device_metric_tests >"$work/memcheck.log" 2>&1
echo "exit $?" >>"$work/memcheck.log"
say "adaptive run, metric and location on the GPU"
.gpu/run foehn-mountainwave -foehn_backend cuda -end_time 1200 -vtk 0 -output_interval 0 \
  -adapt_interval 20 -output_dir "$work/adaptive" >"$work/adaptive.log" 2>&1
echo "exit $?" >>"$work/adaptive.log"
say done
rm -f "$work"/*/*.vtu "$work"/*/mountainwave_mesh*.h5 "$work"/*/checkpoint_* "$work"/*/sections_*
tar -C "$work" -czf "$out/results_f.tar.gz" .
