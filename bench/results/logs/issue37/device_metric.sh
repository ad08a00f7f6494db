#!/usr/bin/env bash
# Issue 37 on the device, call D: the metric on the GPU (adapt::DeviceMetricBuilder). Its tests
# against the host (and compute-sanitizer's memcheck on them), bench_adapt on the default,
# published and 5 M-tet meshes (byte model, host comparison), and the adaptive run with the
# metric on the GPU (the default case, 1200 s, adapted every 20 steps). Builds nothing:
#   bash bench/results/logs/issue37/device_metric.sh   # writes $OUT/results_d.tar.gz
set -u
out=${OUT:?}
work=$(mktemp -d)
say() { echo "== $* ($(date +%T))" | tee -a "$work/calls.log"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >"$work/gpu.txt"
say "device metric tests"
.gpu/run foehn_adapt_device_metric_tests >"$work/device_metric_tests.log" 2>&1
echo "exit $?" >>"$work/device_metric_tests.log"
say "memcheck"
.gpu/run compute-sanitizer --tool memcheck foehn_adapt_device_metric_tests \
  >"$work/memcheck.log" 2>&1
echo "exit $?" >>"$work/memcheck.log"
say "bench_adapt"
.gpu/run bench_adapt --out-dir "$work" >"$work/bench_adapt.log" 2>&1
echo "exit $?" >>"$work/bench_adapt.log"
say "adaptive run, metric on the GPU"
.gpu/run foehn-mountainwave -foehn_backend cuda -end_time 1200 -vtk 0 -output_interval 0 \
  -adapt_interval 20 -output_dir "$work/adaptive" >"$work/adaptive.log" 2>&1
echo "exit $?" >>"$work/adaptive.log"
say done
rm -f "$work"/*/*.vtu "$work"/*/mountainwave_mesh*.h5 "$work"/*/checkpoint_* "$work"/*/sections_*
tar -C "$work" -czf "$out/results_d.tar.gz" .
