#!/usr/bin/env bash
# Does the GAMG set-up hang depend on the contents of freshly cudaMalloc'd memory? The
# GPU-resident default case with every cudaMalloc'd block filled with 0x00, then with 0xff
# (malloc_fill_shim.c, LD_PRELOAD); a run alive after 35 s counts as hung.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
.gpu/run true
for fill in ${FILLS:-0 255}; do
  for i in $(seq 1 ${RUNS:-4}); do
    SHIM_FILL=$fill LD_PRELOAD=$PWD/.gpu/malloc_fill_shim.so .gpu/run foehn-mountainwave \
      -foehn_backend cuda -foehn_solves device -end_time 200 -output_interval 200 \
      -output_dir /tmp/f_${fill}_$i < /dev/null > /tmp/f_${fill}_$i.log 2>&1 &
    pid=$!
    for t in $(seq 1 35); do sleep 1; kill -0 $pid 2>/dev/null || break; done
    if kill -0 $pid 2>/dev/null; then
      echo "fill $fill run $i: HUNG (alive after 35 s)" >> $out/probe.txt
      kill -9 $pid; pkill -9 foehn-mountain; sleep 1
    else
      wait $pid; rc=$?
      echo "fill $fill run $i: exit $rc in $t s" >> $out/probe.txt
      [[ $rc != 0 || $i == 1 ]] && grep -v "pmix\|dlopen\|Perhaps" /tmp/f_${fill}_$i.log | grep -i "shim\|error\|step \|    10 " | head -5 >> $out/probe.txt
    fi
  done
done
