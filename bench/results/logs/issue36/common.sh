# Sourced by the issue-36 device scripts: the shared preamble (results folder, the bundle's
# runner, MPI as root, the PMIx noise filter) and the "before" variant of the core.
set -uo pipefail
out=${OUT:-/tmp/issue36}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
r=.gpu/run
quiet() { grep -v "pmix\|dlopen error\|Perhaps a missing"; }
# The core as it ran before issue 36's levers, with this tree's binary: cold Picard starts,
# Jacobi's zero-diagonal check on for the six Jacobi systems, the projection by CG to rtol 1e-10.
fixdiag_options=""
for system in theta qv qc qr momentum projection; do
  fixdiag_options+=" -${system}_pc_jacobi_fixdiagonal 1"
done
before_options="-picard_warm_start 0 $fixdiag_options -projection_ksp_type cg \
 -projection_ksp_norm_type preconditioned -projection_ksp_max_it 1000"

# Helpers of the second session's scripts (issue36b), each appending to $res:
# step NAME PROGRAM OPTIONS...: the GPU-resident step at 553 k tets, 10 steps (7 timed), its
# mean and its last step line; the log in /tmp/s_NAME.log, run.json in /tmp/s_NAME/.
step() {
  local name=$1 program=$2; shift 2
  timeout 150 $r $program -mesh_tets 554394 -foehn_backend cuda -foehn_solves device \
    -end_time 200 -output_interval 200 -timing_warmup 3 -vtk 0 -sections 0 "$@" \
    -output_dir /tmp/s_$name < /dev/null 2>&1 | quiet > /tmp/s_$name.log
  echo "$name: exit ${PIPESTATUS[0]}, mean step $(grep "Total timestep duration" /tmp/s_$name.log | awk -F'|' '{print $3}') s | $(grep -E '^ +10 ' /tmp/s_$name.log)" >> "$res"
}
# counts NAME: the system table of a counted run and the step's kernels and waits.
counts() {
  echo "-- $1" >> "$res"
  grep -A10 "^| System" /tmp/s_$1.log >> "$res"
  python3 - /tmp/s_$1/run.json >> "$res" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["timed_steps"]["cuda_calls_per_step"]
print("  step: %.0f kernels, %.0f syncs" % (d["kernel_launches"], d["host_synchronizations"]))
PY
}
# gpu_tests: petsc::System's tests, then the core's and the CPU-vs-GPU tests on 1 and 2 ranks.
gpu_tests() {
  $r foehn_petsc_system_tests > /tmp/system.txt 2>&1
  echo "foehn_petsc_system_tests exit $?" >> "$res"
  grep -E "^\[  (PASSED|FAILED) |FAILED TEST|Failure" /tmp/system.txt >> "$res"
  for t in mountain_wave_core_test mountain_wave_gpu_test; do
    for n in 1 2; do
      $r mpirun --oversubscribe -n $n $t 2>&1 | quiet > /tmp/${t}_$n.txt
      echo "$t -n $n: exit ${PIPESTATUS[0]}" >> "$res"
      grep -E "FAILED|PASSED|solves on the GPU" /tmp/${t}_$n.txt | sort | uniq | head -20 >> "$res"
    done
  done
}
