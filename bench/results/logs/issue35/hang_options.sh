#!/usr/bin/env bash
# The GPU-resident default case RUNS times with the options EXTRA (and the environment ENVS,
# e.g. an LD_PRELOAD); a run alive after 35 s counts as hung. Failed runs print their error,
# finished runs their last step and time per step.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
.gpu/run true
label=${LABEL:-options}
for i in $(seq 1 ${RUNS:-6}); do
  env ${ENVS:-} .gpu/run foehn-mountainwave -foehn_backend cuda -foehn_solves device -end_time 200 \
    -output_interval 200 -output_dir /tmp/o_${label}_$i ${EXTRA:-} < /dev/null \
    > /tmp/o_${label}_$i.log 2>&1 &
  pid=$!
  for t in $(seq 1 35); do sleep 1; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "$label run $i: HUNG (alive after 35 s)" >> $out/probe.txt
    kill -9 $pid; pkill -9 foehn-mountain; sleep 1
  else
    wait $pid; rc=$?
    echo "$label run $i: exit $rc in $t s" >> $out/probe.txt
    grep -v "pmix\|dlopen\|Perhaps" /tmp/o_${label}_$i.log |
      grep -i "error\|unused\|^ *10 \|Total timestep" | head -6 >> $out/probe.txt
  fi
done
