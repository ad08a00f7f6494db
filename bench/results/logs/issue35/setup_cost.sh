#!/usr/bin/env bash
# What GAMG's products on the host cost at 5 M tets: the GPU-resident core for 4 steps, default
# (products on the host) against -matptap_backend_cpu 0 -matmatmult_backend_cpu 0 (on the GPU),
# alternated, one rank. A run still going after 240 s is counted as hung.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
.gpu/run true
# VARIANTS: host (both on the host, the default), gpu (both on the GPU), ptap_host (only PtAP on
# the host), smoothing_host (only the prolongator smoothing's A P on the host).
for round in $(seq 1 ${ROUNDS:-2}); do
  for variant in ${VARIANTS:-host gpu}; do
    case $variant in
      host) extra="" ;;
      gpu) extra="-matptap_backend_cpu 0 -matmatmult_backend_cpu 0" ;;
      ptap_host) extra="-matmatmult_backend_cpu 0" ;;
      smoothing_host) extra="-matptap_backend_cpu 0" ;;
    esac
    log=/tmp/setup_${variant}_$round.log
    timeout 240 .gpu/run foehn-mountainwave -mesh_tets ${TETS:-5000000} -foehn_backend cuda \
      -foehn_solves device -end_time 80 -timing_warmup 1 -vtk 0 -sections 0 -output_interval 0 \
      -mesh_partition slabs -output_dir /tmp/setup_${variant}_$round $extra < /dev/null > $log 2>&1
    rc=$?
    first=$(awk '$1 == 1 && $2 ~ /^[0-9.]+$/ {print $NF; exit}' $log)
    step=$(grep "Total timestep duration" $log | awk -F'|' '{print $3}')
    setup=$(grep -o "setup [0-9.]* s" $log | head -1)
    echo "round $round products on the $variant: exit $rc, $setup, first step $first s, mean step $step s" >> $out/probe.txt
    grep -i "error" $log | head -3 >> $out/probe.txt
  done
done
