#!/usr/bin/env bash
# Where does a hung GPU-resident run wait? For each run alive after 35 s: GPU utilisation
# (busy = a kernel that never ends; idle = the host spins), each thread's state and kernel stack,
# and, with cuda-gdb, the running kernels and the host backtraces. Then the same runs with
# CUDA_LAUNCH_BLOCKING=1 (one stream order for everything) and one run under initcheck.
out=${OUT:-/tmp/probe}; mkdir -p $out
pkill -9 foehn-mountain; sleep 1  # the process name (-f would match this shell)
.gpu/run true
run_case() {  # label, env, runs
  local label=$1 envs=$2 runs=$3
  for i in $(seq 1 $runs); do
    env $envs stdbuf -oL -eL .gpu/run foehn-mountainwave -foehn_backend cuda -foehn_solves device \
      -end_time 200 -output_interval 200 -output_dir /tmp/d_${label}_$i \
      < /dev/null > /tmp/d_${label}_$i.log 2>&1 &
    local pid=$!
    for t in $(seq 1 35); do sleep 1; kill -0 $pid 2>/dev/null || break; done
    if kill -0 $pid 2>/dev/null; then
      echo "$label run $i: HUNG (alive after 35 s)" >> $out/probe.txt
      local p=$(pgrep -n foehn-mountain)
      if [[ ! -f $out/hung_${label}.txt ]]; then
        {
          echo "== nvidia-smi utilisation, 3 samples"
          for s in 1 2 3; do nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader; sleep 0.5; done
          echo "== threads (tid state utime stime wchan)"
          for t in /proc/$p/task/*; do echo "$(basename $t) $(cut -d' ' -f3,14,15 $t/stat) $(cat $t/wchan)"; done
          sleep 2
          echo "== threads 2 s later"
          for t in /proc/$p/task/*; do echo "$(basename $t) $(cut -d' ' -f3,14,15 $t/stat)"; done
          echo "== log tail"; grep -v "pmix\|dlopen\|Perhaps" /tmp/d_${label}_$i.log | tail -5
        } > $out/hung_${label}.txt 2>&1
        timeout 60 /usr/local/cuda/bin/cuda-gdb -batch -p $p -ex "info cuda kernels" \
          -ex "thread apply all bt 30" > $out/cudagdb_${label}.txt 2>&1
      fi
      kill -9 $pid $p 2>/dev/null; sleep 1
    else
      wait $pid; local rc=$?
      echo "$label run $i: exit $rc in $t s" >> $out/probe.txt
      [[ $rc != 0 ]] && grep -v "pmix\|dlopen\|Perhaps" /tmp/d_${label}_$i.log | tail -4 >> $out/probe.txt
    fi
  done
}
run_case plain "" ${PLAIN:-4}
run_case blocking "CUDA_LAUNCH_BLOCKING=1" ${BLOCKING:-4}
if [[ ${INITCHECK:-1} == 1 ]]; then
  timeout 150 .gpu/run compute-sanitizer --tool initcheck --print-limit 20 foehn-mountainwave \
    -foehn_backend cuda -foehn_solves device -end_time 40 -output_interval 40 \
    -output_dir /tmp/d_initcheck > $out/initcheck.txt 2>&1
  echo "initcheck exit $?" >> $out/probe.txt
fi
