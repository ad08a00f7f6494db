#!/usr/bin/env bash
# Issue 54 without a GPU: the halo exchanges and reductions a step of the mountain-wave core makes
# on several ranks, with the GPU's solver defaults on the CPU (-foehn_solver_defaults device: the
# same algorithms, so the same iterations and the same counts, which PETSc's own counters give
# whatever the vectors' memory). Each line of VARIANTS (default
# bench/scaling/sync_variants_cpu.txt) is a name and options over the defaults; each runs at each
# of TETS on each of RANKS ranks and leaves $RUNS/syncs-<tets>-<name>-<ranks>cpu-host/run.json
# and a .log beside it, which bench/scaling/syncs_to_bench.py turns into results.
#   TETS="554394" RANKS=2 STEPS=4 WARMUP=1 RUNS=/tmp/cpu-syncs bench/scaling/cpu_sync_counts.sh
# PHYSICS=1 runs each variant's whole hour instead (sections written, 2 warm-up steps) and
# compares it with linear theory into <run>/lt (validation/linear_theory), whose table
# syncs_to_bench.py adds to the case: how the table of docs/mountain_wave.md ("Fewer
# synchronisations") was measured, with TETS=276480 (the default case).
# Times are CPU times, not the GPU's: only the counts and iterations stand for a GPU run.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs=${RUNS:-/tmp/cpu-syncs}
mkdir -p "$runs"
launcher=(mpiexec --oversubscribe --bind-to none)
[[ $(id -u) == 0 ]] && launcher+=(--allow-run-as-root)
if [[ ${PHYSICS:-0} == 1 ]]; then
  length=(-output_interval 3600 -timing_warmup 2)
else
  length=(-max_steps "${STEPS:-4}" -timing_warmup "${WARMUP:-1}" -sections 0 -output_interval 0)
fi
for tets in ${TETS:-554394}; do
  for ranks in ${RANKS:-2}; do
    while read -r name options; do
      [[ -z $name || $name == \#* ]] && continue
      run="syncs-$tets-$name-${ranks}cpu-host"
      started=$SECONDS
      # shellcheck disable=SC2086  # options are words
      "${launcher[@]}" -n "$ranks" build/bin/foehn-mountainwave -mesh_tets "$tets" \
        -foehn_backend cpu -foehn_solver_defaults device -vtk 0 -mesh_partition slabs \
        "${length[@]}" -timing_label "$name" -output_dir "$runs/$run" $options \
        </dev/null >"$runs/$run.log" 2>&1
      status=$?
      rm -f "$runs/$run"/checkpoint_* "$runs/$run"/mountainwave_mesh.h5 "$runs/$run"/*.xmf
      if [[ ${PHYSICS:-0} == 1 && $status == 0 ]]; then
        /usr/bin/python3 validation/linear_theory/compare_to_linear_theory.py \
          --model "$runs/$run/sections_latest.h5" --out "$runs/$run/lt" >>"$runs/$run.log" 2>&1
      fi
      printf '== %-44s exit %d, %d s\n' "$run" "$status" $((SECONDS - started))
      ((status != 0)) && tail -n 4 "$runs/$run.log"
    done <"${VARIANTS:-bench/scaling/sync_variants_cpu.txt}"
  done
done
