#!/usr/bin/env bash
# Probe: GPU-resident default case, new binary and baseline, 5 runs each; a run alive after 40 s
# gets its threads' backtraces (gdb) and is killed.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
.gpu/run true  # unpacks the libraries .gpu-base shares
{ which gdb eu-stack; nvidia-smi --query-compute-apps=pid,used_memory --format=csv; } > $out/env.txt 2>&1
for i in $(seq 1 ${RUNS:-5}); do
  for exe in ${EXES:-foehn-mountainwave foehn-mountainwave-baseline}; do
    runner=.gpu/run; [[ $exe == *baseline ]] && runner=.gpu-base/run
    $runner $exe -foehn_backend cuda -foehn_solves device -end_time 200 -output_interval 200 ${EXTRA:-} \
      -output_dir /tmp/h_${exe}_$i < /dev/null > /tmp/h_${exe}_$i.log 2>&1 &
    pid=$!
    for t in $(seq 1 40); do sleep 1; kill -0 $pid 2>/dev/null || break; done
    if kill -0 $pid 2>/dev/null; then
      echo "$exe run $i: HUNG (alive after 40 s)" >> $out/probe.txt
      grep -v "pmix\|dlopen\|Perhaps" /tmp/h_${exe}_$i.log | tail -6 >> $out/probe.txt
      if [[ ! -f $out/bt.txt ]]; then
        timeout 60 gdb -batch -p $pid -ex "thread apply all bt 25" > $out/bt.txt 2>&1 ||
          for t in /proc/$pid/task/*; do echo "$t $(cat $t/wchan) $(cut -d' ' -f3 $t/stat)"; done > $out/bt.txt
      fi
      kill -9 $pid; sleep 1
    else
      wait $pid; echo "$exe run $i: exit $? in $t s" >> $out/probe.txt
    fi
  done
done
