#!/usr/bin/env bash
# Device calls for the mountain-wave core. Run from the repository root on the GPU host with
#   ../shared/tools/gpu-bundle -o .gpu build/bin/{foehn-mountainwave,mountain_wave_gpu_test}
# usage: validation/mountain_wave/run_on_device.sh <tests|perf|perf-large|solvers|gpusolvers|physics>
#                                                   [mesh_tets] [end_time]
#   tests    CPU vs GPU from t = 0 (solves on the CPU: atomic strategies and deterministic; on
#            the GPU: tight tolerances, no copies back), compute-sanitizer
#   perf     Table 10: 1 core, all cores, 1 core + GPU, 4 cores + GPU (solves on the host, on the
#            GPU, on the GPU under MPS), 1 core + GPU with the solves on the CPU (STEPS steps, 2 of
#            them warm-up; PERF_OPTIONS added to each run; HOST_SOLVES=0, SHARED_DEVICE_SOLVES=0
#            and MPS=0 leave out those runs)
#   perf-large  Table 10 at millions of tets within one call (the one-core run beside the GPU runs)
#   solvers  what preconditioner reuse and solver choices buy, 4 ranks + GPU, solves on the host
#   gpusolvers  solver variants of the GPU-resident core, one rank + GPU
#               (validation/mountain_wave/gpu_solver_variants.txt or GPU_VARIANTS)
#   multigpu  issue 21: RANKS (default "1 2 4") ranks, one GPU each where the host has them (else
#            they share, round robin), solves on the GPU; each run's placement lines and step time
#   physics  the run compared with linear theory, 4 ranks + GPU (sections in $OUT/physics)
set -uo pipefail
what=${1:-tests}
tets=${2:-554394}
end_time=${3:-3600}
out=${OUT:-/tmp/foehn-out}
mkdir -p "$out"
run=${RUN:-.gpu/run}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun --oversubscribe --bind-to none"
quiet() { grep --line-buffered -v "pmix\|dlopen error\|Perhaps a missing"; }
mw() { # ranks backend label outdir extra...
  local ranks=$1 backend=$2 label=$3 dir=$4; shift 4
  $run $mpi -n "$ranks" foehn-mountainwave -mesh_tets "$tets" -foehn_backend "$backend" \
    -timing_label "$label" -output_dir "$dir" "$@" < /dev/null 2>&1 | quiet
}

# Four ranks sharing the GPU through NVIDIA MPS (when the image has it; MPS=0 leaves it out),
# solves on the GPU: what ranks sharing one GPU get when their kernels may run side by side.
four_ranks_under_mps() { # extra options...
  [[ ${MPS:-1} == 1 ]] && command -v nvidia-cuda-mps-control >/dev/null || return 0
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && sleep 1
  mw 4 cuda "4 CPU cores + 1 GPU (MPS), solves on the GPU" "$out/perf-4gpu-mps" "$@" \
    -foehn_solves device > "$out/perf-4gpu-mps.log"
  echo quit | nvidia-cuda-mps-control
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}

if [[ $what == tests ]]; then
  $run mountain_wave_gpu_test 2>&1 | quiet | tee "$out/gpu-core-tests.log" | grep -E "max \||OK|FAILED|PASSED"
  $run compute-sanitizer --tool memcheck --error-exitcode 9 foehn-mountainwave -mesh_cells 8,8,6 \
    -max_steps 2 -foehn_backend cuda -vtk 0 -sections 0 -output_dir /tmp/san 2>&1 | quiet \
    > "$out/core-sanitizer.log"
  grep -E "ERROR SUMMARY" "$out/core-sanitizer.log"
fi

if [[ $what == perf ]]; then
  # Table 10: one core, every host core CPU-only (the fair CPU peer), one core + the GPU and four
  # ranks + the GPU (solves on the GPU with a CUDA PETSc), and one core + the GPU with the solves
  # on the host (the path of a PETSc without CUDA). -log_view of the GPU runs in log_view.txt.
  steps=${STEPS:-5}
  cores=$(nproc)
  common=(-max_steps "$steps" -timing_warmup 2 -vtk 0 -sections 0 -dt 20 ${PERF_OPTIONS:-})
  mw 1 cpu "1 CPU core" "$out/perf-1cpu" "${common[@]}" > "$out/perf-1cpu.log"
  mw "$cores" cpu "$cores CPU cores" "$out/perf-allcpu" "${common[@]}" > "$out/perf-allcpu.log"
  mw 1 cuda "1 CPU core + 1 GPU" "$out/perf-1gpu" "${common[@]}" \
    -log_view ":$out/perf-1gpu/log_view.txt" > "$out/perf-1gpu.log"
  # Four ranks on the GPU: with the solves on the host (what automatic picks when ranks share a
  # GPU) and on the GPU (-foehn_solves device), the latter also under MPS when the image has it.
  mw 4 cuda "4 CPU cores + 1 GPU" "$out/perf-4gpu" "${common[@]}" > "$out/perf-4gpu.log"
  [[ ${SHARED_DEVICE_SOLVES:-1} == 1 ]] && mw 4 cuda "4 CPU cores + 1 GPU, solves on the GPU" \
    "$out/perf-4gpu-devicesolves" "${common[@]}" -foehn_solves device \
    > "$out/perf-4gpu-devicesolves.log"
  four_ranks_under_mps "${common[@]}"
  [[ ${HOST_SOLVES:-1} == 1 ]] && mw 1 cuda "1 CPU core + 1 GPU, solves on the CPU" \
    "$out/perf-1gpu-hostsolves" "${common[@]}" -foehn_solves host > "$out/perf-1gpu-hostsolves.log"
  for f in perf-1cpu perf-allcpu perf-1gpu perf-4gpu perf-4gpu-devicesolves perf-4gpu-mps perf-1gpu-hostsolves; do
    [[ -f $out/$f.log ]] || continue
    echo "== $f"; grep -E "^\| (Total|Momentum)|foehn-mountainwave:|rror" "$out/$f.log"
  done
  grep -E "^(MatCUSPARSCopyFr|MatCUSPARSCopyTo|FoehnCopyD2H)|Stage [0-9]" "$out/perf-1gpu/log_view.txt" | head -40
fi

if [[ $what == solvers ]]; then
  steps=${STEPS:-8}
  common=(-max_steps "$steps" -timing_warmup 2 -vtk 0 -sections 0 -dt 20)
  i=0
  while IFS= read -r variant; do
    i=$((i + 1))
    mw 4 cuda "4 cores + GPU: ${variant:-defaults}" "$out/solver-$i" "${common[@]}" $variant \
      > "$out/solver-$i.log"
    echo "== ${variant:-defaults}"; grep -E "^\| (Total PETSc|Total timestep)" "$out/solver-$i.log"
  done <<'VARIANTS'

-pressure_foehn_pc_rebuild_interval 1 -projection_foehn_pc_rebuild_interval 1
-momentum_foehn_pc_rebuild_interval 4 -theta_foehn_pc_rebuild_interval 4 -qv_foehn_pc_rebuild_interval 4 -qc_foehn_pc_rebuild_interval 4 -qr_foehn_pc_rebuild_interval 4
-pressure_pc_type gamg
-theta_ksp_rtol 1e-10 -qv_ksp_rtol 1e-10 -qc_ksp_rtol 1e-10 -qr_ksp_rtol 1e-10 -momentum_ksp_rtol 1e-10
-theta_ksp_rtol 1e-6 -qv_ksp_rtol 1e-6 -qc_ksp_rtol 1e-6 -qr_ksp_rtol 1e-6 -momentum_ksp_rtol 1e-6 -pressure_ksp_rtol 1e-8 -projection_ksp_rtol 1e-8
-momentum_foehn_pc_rebuild_interval 4 -theta_foehn_pc_rebuild_interval 4 -qv_foehn_pc_rebuild_interval 4 -qc_foehn_pc_rebuild_interval 4 -qr_foehn_pc_rebuild_interval 4 -momentum_ksp_initial_guess_nonzero -theta_ksp_initial_guess_nonzero -qv_ksp_initial_guess_nonzero -theta_ksp_rtol 1e-6 -qv_ksp_rtol 1e-6 -qc_ksp_rtol 1e-6 -qr_ksp_rtol 1e-6 -momentum_ksp_rtol 1e-6 -pressure_ksp_rtol 1e-8 -projection_ksp_rtol 1e-8 -projection_pc_type bjacobi
VARIANTS
fi

if [[ $what == perf-large ]]; then
  # Table 10 at a size where one core takes about a minute per step, within one device call:
  # the one-core run (one warm-up step) runs beside the GPU runs, which use one, four ranks of
  # the sixteen cores; the all-cores run comes after it, alone.
  steps=${STEPS:-3}
  common=(-max_steps "$steps" -timing_warmup 1 -vtk 0 -sections 0 -dt 20 ${PERF_OPTIONS:-})
  mw 1 cpu "1 CPU core" "$out/perf-1cpu" "${common[@]}" > "$out/perf-1cpu.log" &
  one_core=$!
  mw 1 cuda "1 CPU core + 1 GPU" "$out/perf-1gpu" "${common[@]}" \
    -log_view ":$out/perf-1gpu/log_view.txt" > "$out/perf-1gpu.log"
  mw 4 cuda "4 CPU cores + 1 GPU" "$out/perf-4gpu" "${common[@]}" > "$out/perf-4gpu.log"
  four_ranks_under_mps "${common[@]}"
  wait "$one_core"
  mw "$(nproc)" cpu "$(nproc) CPU cores" "$out/perf-allcpu" "${common[@]}" > "$out/perf-allcpu.log"
  for f in perf-1cpu perf-allcpu perf-1gpu perf-4gpu perf-4gpu-mps; do
    [[ -f $out/$f.log ]] || continue
    echo "== $f"; grep -E "^\| Total timestep|foehn-mountainwave:|rror" "$out/$f.log"
  done
fi

if [[ $what == gpusolvers ]]; then
  # Solver choices for the GPU-resident core, one GPU: each line a variant over the defaults.
  steps=${STEPS:-4}
  common=(-max_steps "$steps" -timing_warmup 1 -vtk 0 -sections 0 -dt 20)
  i=0
  while IFS= read -r variant; do
    i=$((i + 1))
    mw 1 cuda "1 core + GPU: ${variant:-defaults}" "$out/gpusolver-$i" "${common[@]}" $variant \
      > "$out/gpusolver-$i.log"
    printf '%-100s' "${variant:-defaults}"
    grep -E "^\| Total timestep" "$out/gpusolver-$i.log" | awk -F'|' '{printf "%s s/step  ", $3}'
    grep -E "^ +$steps " "$out/gpusolver-$i.log" | awk '{print "its", $5, $6, $9, $10, $11}'
  done < "${GPU_VARIANTS:-validation/mountain_wave/gpu_solver_variants.txt}"
fi

if [[ $what == multigpu ]]; then
  steps=${STEPS:-4}
  common=(-max_steps "$steps" -timing_warmup 2 -vtk 0 -sections 0 -dt 20 -foehn_solves device
          ${PERF_OPTIONS:-})
  for n in ${RANKS:-1 2 4}; do
    # Run outputs (checkpoints, mesh) stay on the host; the log and timing tables come back.
    mw "$n" cuda "$n ranks + GPUs (one each where the host has them)" "/tmp/multigpu-$n" \
      "${common[@]}" > "$out/multigpu-$n.log"
    cp "/tmp/multigpu-$n/timing.json" "$out/multigpu-$n-timing.json" 2>/dev/null
    echo "== $n ranks"
    grep -E "\): GPU |\): no GPU|^\| (Total timestep|Total PETSc)|foehn-mountainwave:|rror" \
      "$out/multigpu-$n.log"
  done
fi

if [[ $what == physics ]]; then
  # Runs the variants given one per line in PHYSICS_VARIANTS (default: the defaults) side by
  # side, 4 ranks + the GPU each, keeping every sections file for the comparison.
  variants=${PHYSICS_VARIANTS:-" "}
  i=0
  while IFS= read -r variant; do
    i=$((i + 1))
    mw 4 cuda "4 CPU cores + 1 GPU" "$out/physics-$i" -end_time "$end_time" -output_interval 1800 \
      -vtk 0 $variant > "$out/physics-$i.log" &
  done <<< "$variants"
  wait
  for log in "$out"/physics-*.log; do echo "== $log"; head -1 "$log"; tail -2 "$log"; done
fi
