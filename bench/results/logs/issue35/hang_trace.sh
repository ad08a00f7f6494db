#!/usr/bin/env bash
# A hung GPU-resident run of the default case: line-buffered progress, PETSc's event trace and,
# where cuda-gdb exists, every thread's backtrace after 30 s.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
ls /usr/local/cuda/bin | grep -i gdb > $out/env.txt 2>&1
for i in 1 2 3; do
  stdbuf -oL -eL .gpu/run foehn-mountainwave -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -output_dir /tmp/t_$i -log_trace /tmp/trace_$i \
    < /dev/null > /tmp/t_$i.log 2>&1 &
  pid=$!
  for t in $(seq 1 30); do sleep 1; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i: HUNG" >> $out/probe.txt
    grep -v "pmix\|dlopen\|Perhaps" /tmp/t_$i.log | tail -8 >> $out/probe.txt
    echo "-- last PETSc events:" >> $out/probe.txt
    tail -12 /tmp/trace_$i* >> $out/probe.txt 2>&1
    timeout 90 /usr/local/cuda/bin/cuda-gdb -batch -p $pid -ex "thread apply all bt 30" \
      > $out/bt_$i.txt 2>&1
    kill -9 $pid; sleep 1
    break
  else
    wait $pid; echo "run $i: exit $? in $t s" >> $out/probe.txt
  fi
done
