#!/usr/bin/env bash
# 1. Every uninitialised device read (but thrust find_if's reads of tuple<bool,long> padding, 1265
#    of 1290: harmless) of two steps of the GPU-resident default case, summarised by
#    kernel and by the first named host frame (initcheck.txt keeps the first errors in full).
# 2. Which kernel never ends: the run under cuda-gdb, interrupted after 30 s if still running,
#    then the running kernels and the host and device backtraces.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
.gpu/run true
args="-no_signal_handler -foehn_backend cuda -foehn_solves device -output_interval 200"
if [[ ${INITCHECK:-1} == 1 ]]; then
  timeout 200 .gpu/run compute-sanitizer --tool initcheck --print-limit 100000 \
    --kernel-name-exclude kns=DeviceReduceSingleTileKernel foehn-mountainwave \
    $args -end_time 40 -output_dir /tmp/k_initcheck > /tmp/initcheck_full.txt 2>&1
  echo "initcheck exit $?" >> $out/probe.txt
  head -c 400000 /tmp/initcheck_full.txt > $out/initcheck_head.txt
  awk '/^=========.*(Uninitialized|Invalid)/{err=$0; kern=""; frame=""; next}
       /^=========     at /{if(kern=="") kern=substr($0,17,160); next}
       /Host Frame: [A-Za-z_]/{ if(frame=="" && $0 !~ /cuLaunchKernel|cudaLaunchKernel|cudaMemcpy|libcudart|libcusparse|libcublas/) {frame=$4; print err " | " kern " | " frame} }' \
    /tmp/initcheck_full.txt | sort | uniq -c | sort -rn > $out/initcheck_summary.txt
  grep "ERROR SUMMARY" /tmp/initcheck_full.txt >> $out/initcheck_summary.txt
fi
for i in $(seq 1 ${ATTEMPTS:-3}); do
  .gpu/run /usr/local/cuda/bin/cuda-gdb -batch -ex "set pagination off" -ex "set confirm off" \
    -ex run -ex "info cuda kernels" -ex "thread apply all bt 30" -ex "info cuda blocks" \
    -ex "bt 20" -ex "info cuda threads" -ex kill \
    --args foehn-mountainwave $args -end_time 200 -output_dir /tmp/k_$i \
    < /dev/null > $out/cudagdb_run$i.txt 2>&1 &
  gdbpid=$!
  hung=0
  for t in $(seq 1 40); do sleep 1; kill -0 $gdbpid 2>/dev/null || break; done
  if kill -0 $gdbpid 2>/dev/null; then
    hung=1; echo "attempt $i: alive after 40 s, interrupting" >> $out/probe.txt
    pkill -INT foehn-mountain
    for t in $(seq 1 90); do sleep 1; kill -0 $gdbpid 2>/dev/null || break; done
    kill -9 $gdbpid 2>/dev/null; pkill -9 foehn-mountain
    break
  else
    echo "attempt $i: ended by itself in $t s" >> $out/probe.txt
  fi
done
