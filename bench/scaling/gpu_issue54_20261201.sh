#!/usr/bin/env bash
# One-H200 device call of issue 54's second session (only nvidia-h200 was lent): the GPU tests
# of the mountain-wave core (the new options against the CPU included), memcheck of the new GPU
# test, and the published size's step on one GPU with cc98920's configuration, the defaults and
# -picard 1, interleaved twice (bench/scaling/sync_variants_cpu.txt's options). Needs .gpu
# (../shared/tools/gpu-bundle of foehn-mountainwave and the three test programs); writes $OUT.
set -uo pipefail
out=${OUT:-/tmp/foehn-out}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/device.txt"
timeout 240 .gpu/run mountain_wave_gpu_test >"$out/mountain_wave_gpu_test.log" 2>&1
echo "gpu test exit $?"
timeout 240 .gpu/run mountain_wave_core_test --gtest_filter='*cuda*' >"$out/core_cuda.log" 2>&1
echo "core cuda exit $?"
timeout 120 .gpu/run gravity_wave_dispersion_test >"$out/dispersion.log" 2>&1
echo "dispersion exit $?"
before=$(grep '^before ' bench/scaling/sync_variants_cpu.txt | cut -d' ' -f2-)
for round in 1 2; do
  for variant in before final one; do
    options=
    [[ $variant == before ]] && options=$before
    [[ $variant == one ]] && options="-picard 1"
    # shellcheck disable=SC2086
    timeout 150 .gpu/run foehn-mountainwave -mesh_tets 554394 -foehn_backend cuda \
      -foehn_solves device -max_steps 14 -timing_warmup 4 -vtk 0 -sections 0 -output_interval 0 \
      -timing_label "$variant" -output_dir "$out/syncs-554394-$variant-1gpu-staged-r$round" \
      $options >"$out/syncs-554394-$variant-1gpu-staged-r$round.log" 2>&1
    echo "$variant r$round exit $?: $(grep -E '^\| Total timestep' "$out/syncs-554394-$variant-1gpu-staged-r$round.log")"
    rm -f "$out"/syncs-*/checkpoint_* "$out"/syncs-*/*.h5 "$out"/syncs-*/*.xmf
  done
done
timeout 200 .gpu/run compute-sanitizer --tool memcheck mountain_wave_gpu_test \
  --gtest_filter='*ExtrapolatedStart*' >"$out/memcheck.log" 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' "$out/memcheck.log")"
# The device call brings back a limited number of files: the runs' logs and JSON in one archive.
(cd "$out" && tar czf runs.tar.gz syncs-* && rm -rf syncs-*)
