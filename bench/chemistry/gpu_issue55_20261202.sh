#!/usr/bin/env bash
# One-H200 device call of issue 55 (stiff chemistry right or refused, on the GPU): the CUDA
# chemistry tests, memcheck of the new refusal test, and the stiff suite of
# tests/unit/chemistry/python/check_stiff_problems_against_radau.py with foehn-box on the GPU
# (both strategies) against the Radau references computed on the CPU host
# (bench/chemistry/issue55/radau_references.json; the GPU host has no SciPy). Then the box
# tool's GPU tests, the adaptive run's tests and the Fortran core on the GPU (the C ABI's
# device branch). Needs .gpu (../shared/tools/gpu-bundle of the programs named below); writes
# $OUT. PART=1: the tests, memcheck and the suite on thread_per_cell; PART=2: the suite on both
# strategies, the box tool, the Fortran core and the adaptive run.
set -uo pipefail
out=${OUT:-/tmp/foehn-out}
repo=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
# CUDA PETSc with Debian's Open MPI (not CUDA-aware).
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/device.txt"
.gpu/run true
appdir=$(ls -d /tmp/gpu-bundle-app-* | head -n 1)
# The test programs hold the build host's paths (/work/main/data, /work/main/build/bin).
if [[ $repo != /work/main ]]; then
  mkdir -p /work/main/build
  ln -sfn "$repo/data" /work/main/data
  ln -sfn "$repo/tests" /work/main/tests
  ln -sfn "$appdir/bin" /work/main/build/bin
fi
box="$out/box"
printf '#!/usr/bin/env bash\nexec %s/.gpu/run foehn-box "$@"\n' "$repo" >"$box"
chmod +x "$box"
stiff() {  # $1: the GPU strategy
  FOEHN_BOX_ARGS="-foehn_backend cuda -gpu_strategy $1" timeout 280 python3 \
    tests/unit/chemistry/python/check_stiff_problems_against_radau.py "$box" "$repo/data/mechanisms" \
    "/tmp/stiff-$1" bench/chemistry/issue55/radau_references.json >"$out/stiff-$1.log" 2>&1
  echo "stiff suite $1 exit $?: $(tail -n 1 "$out/stiff-$1.log")"
}
if [[ ${PART:-1} == 1 ]]; then
  timeout 200 .gpu/run foehn_cuda_chemistry_tests >"$out/cuda_chemistry.log" 2>&1
  echo "cuda chemistry tests exit $?: $(grep -E '^\[  (PASSED|FAILED)' "$out/cuda_chemistry.log" | tr '\n' ' ')"
  timeout 150 .gpu/run compute-sanitizer --tool memcheck foehn_cuda_chemistry_tests \
    --gtest_filter='*PhysicalRange*:*Failures*' >"$out/memcheck.log" 2>&1
  echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' "$out/memcheck.log")"
  [[ ${PART:-1} == 1 ]] && stiff thread_per_cell
else
  # The conserved totals' shared-memory stores of block_per_cell (one writer a warp).
  timeout 200 .gpu/run compute-sanitizer --tool racecheck foehn_cuda_chemistry_tests \
    --gtest_filter='*PhysicalRange*:*AllMethods*' >"$out/racecheck.log" 2>&1
  echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck.log" | tr '\n' ' ')"
  stiff thread_per_cell
  stiff block_per_cell
  timeout 120 .gpu/run foehn_cli_box --gtest_filter='BoxTool.*' >"$out/box_tool.log" 2>&1
  echo "box tool exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/box_tool.log" | tr '\n' ' ')"
  for ranks in 1 2; do
    timeout 120 .gpu/run mpirun -n $ranks foehn-fortran-core -foehn_backend cuda \
      >"$out/fortran_core_cuda_n$ranks.log" 2>&1
    echo "fortran core cuda n$ranks exit $?"
  done
  timeout 150 .gpu/run foehn-mountainwave -foehn_backend cuda -adapt_interval 20 -vtk 0 \
    -sections 0 -output_dir /tmp/adapt-cuda >"$out/adapt_cuda.log" 2>&1
  echo "adaptive default case on cuda exit $?: $(grep -iE 'adapt|cfl' "$out/adapt_cuda.log" | tail -n 2 | tr '\n' ' ')"
  cp /tmp/adapt-cuda/run.json "$out/adapt_cuda_run.json" 2>/dev/null
fi
