#!/usr/bin/env bash
# Device calls of the scale-out work (issues 32 and 39): the mountain-wave core, the main job's
# launch and the GPU tests on 1, 2, ... GPUs of one host (GPUS, "1 2" unless set; "1 2 4" on a
# four-GPU host), one rank per GPU. Run from the repository
# root on the GPU host, with the executables packed by
#   ../shared/tools/gpu-bundle -o .gpu build/bin/{foehn-mountainwave,device_handoff_mpi_test,...}
# usage: bench/scaling/run_on_device.sh <mode>...   (modes run in the order given)
#   tests     topology; the CUDA hand-off tests (two GPUs in one process); every multi-rank GPU
#             test on each of GPUS ranks, one GPU each (a hang ends after 240 s and is reported)
#   krylov    Krylov variants of the multi-rank solves, 2 ranks on 2 GPUs at KRYLOV_TETS (5 M),
#             the 1-GPU run beside them (KRYLOV_VARIANTS: a file, one variant a line)
#   strong    strong scaling: STRONG_TETS ("554394 5000000 20000000") on each of GPUS
#   weak      weak scaling: WEAK_TETS per GPU ("5000000 20000000") on each of GPUS
#   large     the largest case on one GPU: LARGE_TETS ("40000000"), LARGE_ARGS added to its
#             options; nvidia-smi samples the GPU's memory in use every 100 ms (the peak of the
#             preconditioner's set-up, which the end-of-step figure of the run log misses)
#   main      the main job's default case with the default launcher's rank count and with
#             each other launch (one rank per GPU for each of GPUS, and two ranks per GPU)
#   ucx       AWARE_TETS ("5000000 20000000") on 1 GPU and on each other of GPUS, host-staged and
#             with PyPI's CUDA UCX under Open MPI and -use_gpu_aware_mpi 1
#             (bench/scaling/with_cuda_ucx.sh, collectives staged by libfoehn_device_collectives;
#             .ucx carried), interleaved; ucx_info's transports
#   memory    GPU memory per tet at MEMORY_TETS (5 M) on one GPU, with options that may cut it
#             (MEMORY_VARIANTS: a file, one variant a line)
#   particles bench_particles_distributed: PARCELS (2e8) parcels, 1 GPU vs each other of GPUS
#   chemistry bench_chemistry_distributed: CELLS (1e6) cells, 1 GPU vs each other of GPUS
#   stencil   bench_stencils_distributed: STENCIL_N (8192) squared x 64, 1 GPU vs each of GPUS
#             (STENCIL_REPEATS timed runs, 3)
#   logview   -log_view of STRONG_TETS' second size on each of GPUS (where the time goes)
#   hostptap  HOSTPTAP_TETS (20 M) on each of GPUS with GAMG's Galerkin products formed on the
#             host (-matptap_backend_cpu): past the per-rank cuSPARSE limit of several ranks
#   clear     2 GPUs at CLEAR_TETS (5 M) with -mat_product_clear 1 (GAMG's product buffers freed
#             on several ranks: what failed at 20 M), beside the default
#   syncs     issue 54: solver variants (SYNC_VARIANTS) at SYNC_TETS on each of GPUS, host-staged
#             and CUDA-aware (.cudampi carried: bench/scaling/pack_cuda_mpi.sh); counts in run.json
#   latency   bench_exchange_latency on each of GPUS > 1, host-staged and CUDA-aware
#   physics   the default case's whole hour on one GPU per PHYSICS_VARIANTS line (sections back)
#   sanitize  compute-sanitizer racecheck and synccheck of two multi-rank GPU tests on 2 ranks
# Each run leaves $RUNS/<name>/{timing.json,run.json} and $RUNS/<name>.log; `pack` (always last)
# puts the logs and JSON into $OUT/scaling-runs.tar.gz for bench/scaling/scaling_to_bench.py.
set -uo pipefail
out=${OUT:-/tmp/foehn-out}
runs=${RUNS:-/tmp/scaling-runs}
mkdir -p "$out" "$runs"
run=${RUN:-.gpu/run}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Keep NVLink multicast off (shared hosts), also for anything these programs start.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export GTEST_COLOR=no  # plain test lines for the summary below
mpi="mpirun --oversubscribe --bind-to none"
quiet() { grep --line-buffered -v "pmix\|dlopen error\|Perhaps a missing"; }
steps=${STEPS:-6}
warmup=${WARMUP:-2}
gpus=${GPUS:-1 2}
most_gpus=${gpus##* }

# mw <name> <ranks> <tets> [extra options...]: one timed run, solves on the GPUs.
mw() {
  local name=$1 ranks=$2 tets=$3; shift 3
  local dt=20
  ((tets > 12000000)) && dt=15  # CFL: -dt 20 is refused from about 15 M tets
  ((tets > 60000000)) && dt=10  # and -dt 15 from about 60 M (edges shrink as tets^(-1/3))
  local started=$SECONDS
  timeout "${RUN_LIMIT:-540}" $run ${MPI_WRAPPER:-} $mpi -n "$ranks" ${RANK_WRAPPER:-} foehn-mountainwave -mesh_tets "$tets" \
    -foehn_backend cuda -foehn_solves device -max_steps "$steps" -timing_warmup "$warmup" \
    -dt "$dt" -vtk 0 -sections 0 -output_interval 0 -timing_label "$name" -mesh_partition slabs \
    -output_dir "$runs/$name" "$@" </dev/null >"$runs/$name.log" 2>&1
  local status=$?
  rm -f "$runs/$name"/checkpoint_* "$runs/$name"/mountainwave_mesh.h5 "$runs/$name"/*.xmf
  printf '== %-40s ranks %d, tets %d, exit %d, %d s: ' "$name" "$ranks" "$tets" "$status" \
    $((SECONDS - started))
  grep -E "setup [0-9.]+ s" -o "$runs/$name.log" | tr '\n' ' '
  grep -E "^\| Total timestep" "$runs/$name.log" | awk -F'|' '{printf "%s s/step ", $3}'
  echo
  grep -E "GPU memory|warning|rror|refuse" "$runs/$name.log" | head -5
  # A run that failed or ran out of time: its last lines say where it was.
  ((status != 0)) && grep -v "dlopen\|pmix\|Perhaps a missing" "$runs/$name.log" | tail -n 6
  return 0
}

# Packs what the runs left so far (after every mode: a call cut short still returns them).
pack() {
  [[ -n $(ls -A "$runs") ]] || return 0
  tar -C "$runs" -czf "$out/scaling-runs.tar.gz" \
    $(cd "$runs" && find . -name "*.json" -o -name "*.md" -o -name "*.log" -o -name "logview-*.txt" \
      -o -name "sections-*.h5") \
    2>/dev/null
}

for mode in "$@"; do
  case $mode in
    tests)
      nvidia-smi topo -m >"$out/topology.txt" 2>&1
      nvidia-smi -L >>"$out/topology.txt"
      {
        $run foehn_cuda_petsc_handoff 2>&1 | quiet | tail -n 4
        # Each MPI: Debian's (host-staged) and, where .cudampi is carried, the CUDA-aware one.
        routes=staged
        [[ -f .cudampi/openmpi-cuda.tar.xz ]] && routes="staged aware"
        for route in $routes; do
          wrapper=
          [[ $route == aware ]] && wrapper=bench/scaling/with_cuda_mpi.sh
          for n in $gpus; do
            for test in ${GPU_TESTS:-device_handoff_mpi_test distributed_diffusion_test \
              mountain_wave_gpu_test node_exchange_test block_chebyshev_test}; do
              echo "== $test on $n rank(s), $route"
              timeout 240 $run $wrapper $mpi -n "$n" "$test" 2>&1 | quiet |
                grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |rank\(s\)|max \||tests ran|Failure|exception|rror:" | sort | uniq -c
              echo "exit ${PIPESTATUS[0]} (124: killed after 240 s)"
            done
          done
        done
        $run compute-sanitizer --tool memcheck --error-exitcode 9 $mpi -n 1 device_handoff_mpi_test \
          2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED"
      } 2>&1 | tee "$out/gpu-tests.log"
      ;;
    krylov)
      tets=${KRYLOV_TETS:-5000000}
      mw "krylov-1gpu-defaults" 1 "$tets"
      i=0
      while IFS= read -r variant; do
        [[ $variant =~ ^# ]] && continue
        i=$((i + 1))
        mw "krylov-2gpu-$i" 2 "$tets" $variant
        echo "   variant $i: ${variant:-defaults}"
        grep -E "^ +$steps " "$runs/krylov-2gpu-$i.log" | tail -n 1
      done <"${KRYLOV_VARIANTS:-bench/scaling/krylov_variants.txt}"
      ;;
    strong)
      for tets in ${STRONG_TETS:-554394 5000000 20000000}; do
        for n in $gpus; do mw "strong-$tets-${n}gpu" "$n" "$tets"; done
      done
      ;;
    weak)
      for tets in ${WEAK_TETS:-5000000 20000000}; do
        for n in $gpus; do
          # One GPU at this size is the strong-scaling baseline when that ran in this call.
          if ((n == 1)) && [[ -f $runs/strong-$tets-1gpu/timing.json ]]; then continue; fi
          mw "weak-$tets-${n}gpu" "$n" $((n * tets))
        done
      done
      ;;
    large)
      for tets in ${LARGE_TETS:-40000000}; do
        nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 100 \
          >"$runs/large-$tets-1gpu-memory.log" 2>&1 &
        sampler=$!
        STEPS=3 WARMUP=1 mw "large-$tets-1gpu" 1 "$tets" ${LARGE_ARGS:-}
        kill "$sampler" 2>/dev/null
        awk -F', ' '$1 == 0 && $2 > peak {peak = $2} END {printf "   peak GPU 0 memory in use: %d MiB\n", peak}' \
          "$runs/large-$tets-1gpu-memory.log"
      done
      ;;
    main)
      # The README's launcher on this host, as run-main.sh would start it (-end_time short).
      ranks=$(FOEHN_CUDA_BACKEND=1 bash scripts/ranks-for-host.sh build 276480)
      launches="default:$ranks"
      for n in $gpus; do launches+=" ${n}ranks:$n"; done
      launches+=" $((2 * most_gpus))ranks:$((2 * most_gpus))"
      for launch in $launches; do
        name=${launch%%:*} n=${launch##*:}
        timeout 300 $run $mpi -n "$n" foehn-mountainwave -output_dir "$runs/main-$name" \
          -end_time 400 -timing_warmup 2 -vtk 0 -sections 0 -timing_label "main-$name" \
          </dev/null >"$runs/main-$name.log" 2>&1
        rm -f "$runs/main-$name"/checkpoint_* "$runs/main-$name"/mountainwave_mesh.h5
        printf '== main launch %-8s %d rank(s): ' "$name" "$n"
        grep -E "^\| Total timestep" "$runs/main-$name.log" | awk -F'|' '{printf "%s s/step ", $3}'
        grep -E "solves on the|warning" "$runs/main-$name.log" | head -3
        echo
      done
      ;;
    ucx)
      $run bash -c 'LD_LIBRARY_PATH=$PWD/.ucx:$LD_LIBRARY_PATH UCX_MODULE_DIR=$PWD/.ucx/ucx \
        .ucx/ucx_info -v; LD_LIBRARY_PATH=$PWD/.ucx:$LD_LIBRARY_PATH \
        UCX_MODULE_DIR=$PWD/.ucx/ucx .ucx/ucx_info -d' 2>&1 |
        grep -E "Library version|Transport:|Device:" | sort | uniq -c | tee "$out/ucx-info.txt"
      for tets in ${AWARE_TETS:-5000000 20000000}; do
        mw "ucx-$tets-1gpu" 1 "$tets"
        for n in $gpus; do
          ((n > 1)) || continue
          mw "ucx-$tets-${n}gpu-hoststaged" "$n" "$tets"
          RANK_WRAPPER=bench/scaling/with_cuda_ucx.sh mw "ucx-$tets-${n}gpu-cudaaware" "$n" "$tets" \
            -use_gpu_aware_mpi 1
        done
      done
      ;;
    memory)
      i=0
      while IFS= read -r variant; do
        [[ $variant =~ ^# ]] && continue
        i=$((i + 1))
        STEPS=2 WARMUP=1 mw "memory-1gpu-$i" 1 "${MEMORY_TETS:-5000000}" $variant
        echo "   memory variant $i: ${variant:-defaults}"
      done <"${MEMORY_VARIANTS:-bench/scaling/memory_variants.txt}"
      ;;
    particles | chemistry | stencil)
      # Each run times rank 0's GPU alone (the baseline) and then all of its ranks.
      for n in $gpus; do
        ((n > 1)) || continue
        mkdir -p "$runs/$mode-${n}gpu"
        case $mode in
          particles) args=(bench_particles_distributed -parcels "${PARCELS:-2e8}") ;;
          chemistry) args=(bench_chemistry_distributed -cells "${CELLS:-1e6}") ;;
          stencil) args=(bench_stencils_distributed -n "${STENCIL_N:-8192}" -nz 64 -repeats "${STENCIL_REPEATS:-3}") ;;
        esac
        echo "== $mode on $n GPUs"
        timeout "${RUN_LIMIT:-300}" $run $mpi -n "$n" "${args[@]}" -out_dir "$runs/$mode-${n}gpu" 2>&1 |
          quiet | tee "$runs/$mode-${n}gpu.log" | tail -n 6
      done
      ;;
    hostptap)
      tets=${HOSTPTAP_TETS:-20000000}
      for n in $gpus; do mw "hostptap-$tets-${n}gpu" "$n" "$tets" -matptap_backend_cpu; done
      ;;
    clear)
      tets=${CLEAR_TETS:-5000000}
      mw "clear-$tets-2gpu-default" 2 "$tets"
      mw "clear-$tets-2gpu-product-clear" 2 "$tets" -mat_product_clear 1
      ;;
    logview)
      set -- ${STRONG_TETS:-554394 5000000}
      tets=${2:-$1}
      for n in $gpus; do
        mw "logview-$tets-${n}gpu" "$n" "$tets" -log_view ":$runs/logview-$tets-${n}gpu.txt"
      done
      ;;
    syncs)
      # Issue 54: the variants of SYNC_VARIANTS (a name, then options over the defaults, one a
      # line) at each of SYNC_TETS on each of GPUS; on several GPUs host-staged (Debian's Open
      # MPI) and, where .cudampi is carried, CUDA-aware (SYNC_ROUTES, "staged aware"). run.json
      # holds the per-step halo exchanges and reductions, and with SYNC_COUNT (default
      # -count_cuda_calls; empty for timings without CUPTI) the kernels and host waits.
      for tets in ${SYNC_TETS:-554394 5000000}; do
        while read -r name options; do
          [[ -z $name || $name == \#* ]] && continue
          for n in $gpus; do
            for route in ${SYNC_ROUTES:-staged aware}; do
              ((n == 1)) && [[ $route == aware ]] && continue
              [[ $route == aware && ! -f .cudampi/openmpi-cuda.tar.xz ]] && continue
              wrapper=
              [[ $route == aware ]] && wrapper=bench/scaling/with_cuda_mpi.sh
              MPI_WRAPPER=$wrapper mw "syncs-$tets-$name-${n}gpu-$route" "$n" "$tets" \
                ${SYNC_COUNT--count_cuda_calls} $options
              grep -E "^foehn-mountainwave: MPI:" "$runs/syncs-$tets-$name-${n}gpu-$route.log"
            done
          done
        done <"${SYNC_VARIANTS:-bench/scaling/sync_variants_before_after.txt}"
      done
      ;;
    latency)
      # One halo exchange and one reduction, host and device vectors, each MPI (issue 54).
      for n in $gpus; do
        ((n > 1)) || continue
        for route in staged aware; do
          wrapper=
          if [[ $route == aware ]]; then
            [[ -f .cudampi/openmpi-cuda.tar.xz ]] || continue
            wrapper=bench/scaling/with_cuda_mpi.sh
          fi
          mkdir -p "$runs/latency-${n}gpu-$route"
          echo "== exchange latency, $n ranks, $route"
          timeout 300 $run $wrapper $mpi -n "$n" bench_exchange_latency \
            -out_dir "$runs/latency-${n}gpu-$route" 2>&1 | quiet |
            tee "$runs/latency-${n}gpu-$route.log" | grep -E "^MPI:|^\| (exchange|reduction|mpi)"
        done
      done
      ;;
    physics)
      # The main job's default case, the whole hour on one GPU, for each of PHYSICS_VARIANTS (a
      # name, then options): its sections come back for the linear-theory comparison here.
      while read -r name options; do
        [[ -z $name || $name == \#* ]] && continue
        timeout 400 $run $mpi -n 1 foehn-mountainwave -output_dir "$runs/physics-$name" -vtk 0 \
          -output_interval 1200 -timing_label "physics-$name" $options </dev/null \
          >"$runs/physics-$name.log" 2>&1
        echo "== physics $name: exit $?"
        cp "$runs/physics-$name/sections_latest.h5" "$runs/sections-$name.h5" 2>/dev/null
        rm -rf "$runs/physics-$name"/checkpoint_* "$runs/physics-$name"/*.h5
        grep -E "^\| Total timestep|divergence" "$runs/physics-$name.log" | tail -n 2
      done <"${PHYSICS_VARIANTS:-bench/scaling/sync_variants_before_after.txt}"
      ;;
    sanitize)
      # racecheck and synccheck on two ranks, one GPU each: device data complete on the stream
      # PETSc and MPI read before they read it.
      for tool in ${SANITIZE_TOOLS:-racecheck synccheck}; do
        # "test[:gtest filter]"
        for entry in ${SANITIZE_TESTS:-block_chebyshev_test mountain_wave_gpu_test:*OverAllRanks*}; do
          test=${entry%%:*} filter=
          [[ $entry == *:* ]] && filter=--gtest_filter=${entry#*:}
          echo "== compute-sanitizer $tool, $test $filter on 2 ranks"
          timeout "${SANITIZE_LIMIT:-150}" $run $mpi -n 2 compute-sanitizer --tool "$tool" --error-exitcode 9 "$test" \
            $filter 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | sort | uniq -c
          echo "exit ${PIPESTATUS[0]}"
        done
      done 2>&1 | tee "$out/sanitize.log"
      ;;
    *) echo "run_on_device.sh: unknown mode '$mode'" >&2 ;;
  esac
  pack
done
