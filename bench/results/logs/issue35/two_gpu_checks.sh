#!/usr/bin/env bash
# On a host with two GPUs, one per rank: the hand-off tests (their two-GPU case included),
# mountain_wave_gpu_test on 2 ranks, and the GPU-resident default case on 2 ranks RUNS times
# (GAMG's products on the host on MPIAIJCUSPARSE too; a run alive after 60 s counts as hung).
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
quiet() { grep -v "pmix\|dlopen error\|Perhaps a missing"; }
{
  nvidia-smi -L
  .gpu/run foehn_cuda_petsc_handoff 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST"
  echo "foehn_cuda_petsc_handoff exit ${PIPESTATUS[0]}"
  .gpu/run mpirun -n 2 mountain_wave_gpu_test 2>&1 | quiet > /tmp/gpu2.txt
  echo "mountain_wave_gpu_test -n 2 (one GPU per rank): exit ${PIPESTATUS[0]}"
  grep -E "FAILED|GPU [01]" /tmp/gpu2.txt | head -6
} >> $out/probe.txt 2>&1
for i in $(seq 1 ${RUNS:-5}); do
  .gpu/run mpirun -n 2 foehn-mountainwave -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -output_dir /tmp/two_$i < /dev/null > /tmp/two_$i.log 2>&1 &
  pid=$!
  for t in $(seq 1 60); do sleep 1; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "2 ranks run $i: HUNG (alive after 60 s)" >> $out/probe.txt
    kill -9 $pid; pkill -9 foehn-mountain; pkill -9 mpirun; sleep 1
  else
    wait $pid; rc=$?
    echo "2 ranks run $i: exit $rc in $t s" >> $out/probe.txt
    grep -v "pmix\|dlopen\|Perhaps" /tmp/two_$i.log |
      grep -i "error\|GPU [01]\|^ *10 \|Total timestep" | head -5 >> $out/probe.txt
  fi
done
# RESTART=1: a 2-rank GPU-resident run with checkpoints every 5 steps, then a restart from the
# step-5 checkpoint to the end (checkpoints, outputs and the restart path on one GPU per rank).
if [[ ${RESTART:-0} == 1 ]]; then
  run2() { .gpu/run mpirun -n 2 foehn-mountainwave -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 100 -output_dir /tmp/two_restart "$@" < /dev/null; }
  run2 -checkpoint_interval 5 > /tmp/two_first.log 2>&1
  echo "2 ranks, checkpoints every 5 steps: exit $?" >> $out/probe.txt
  run2 -restart /tmp/two_restart/checkpoint_000005.h5 > /tmp/two_restart.log 2>&1
  echo "2 ranks, restart from step 5: exit $?" >> $out/probe.txt
  grep -h "restarted\|^ *10 " /tmp/two_first.log /tmp/two_restart.log >> $out/probe.txt
  ls /tmp/two_restart >> $out/probe.txt
fi
