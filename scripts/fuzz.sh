#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz in ./build-fuzz (clang, ASan + UBSan, CPU only) and
# runs each for a time or a number of executions (tests/fuzz/README.md):
#   scripts/fuzz.sh --time 60                 every target for 60 s
#   scripts/fuzz.sh --runs 1000000 msh_reader  one target for a million inputs
#   scripts/fuzz.sh --build-only               configure and build only
#   scripts/fuzz.sh --no-build --time 60       run what build-fuzz holds (e.g. two at a time)
#   scripts/fuzz.sh --triage vtu_reader        one line per finding: what, and where it happened
# Each target starts from a scratch copy of tests/fuzz/corpus/<target> (build-fuzz/scratch),
# so the repository's corpus changes only when new inputs are merged back on purpose (README).
# Crashes, leaks, timeouts (> 10 s per input) and out-of-memory inputs (> 2 GB) are written to
# build-fuzz/findings/<target>/ (emptied when the target starts), the log to
# build-fuzz/logs/<target>.log; the exit status is 1 when any target found something. Arguments
# after `--` go to every fuzzer (e.g. -jobs=2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  echo "usage: scripts/fuzz.sh [--time SECONDS | --runs N] [--build-only | --no-build | --triage]" \
       "[target ...] [-- fuzzer flags]"
  echo "targets:" tests/fuzz/corpus/*/ | sed 's|tests/fuzz/corpus/||g; s|/||g'
}

budget=(-max_total_time=60)
build_only=0
no_build=0
triage=0
targets=()
extra=()
while (($#)); do
  case $1 in
    --time) budget=(-max_total_time="$2"); shift 2 ;;
    --runs) budget=(-runs="$2"); shift 2 ;;
    --build-only) build_only=1; shift ;;
    --no-build) no_build=1; shift ;;
    --triage) triage=1; no_build=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) usage >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for folder in tests/fuzz/corpus/*/; do targets+=("$(basename "$folder")"); done
fi
for target in "${targets[@]}"; do
  [[ -d tests/fuzz/corpus/$target ]] || { echo "fuzz: unknown target '$target'" >&2; usage >&2; exit 2; }
done

build="build-fuzz"
jobs=$(nproc 2>/dev/null || echo 2)
if ((!no_build)); then
  # -O1 without NDEBUG: assertions (ours, nlohmann-json's) stay on and count as findings.
  cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DFOEHN_FUZZ=ON -DFOEHN_CUDA=OFF -DFOEHN_FORTRAN=OFF -DFOEHN_BUILD_TESTS=OFF \
    -DFOEHN_BUILD_BENCH=OFF >"$build-configure.log" 2>&1 || { cat "$build-configure.log"; exit 1; }
  cmake --build "$build" -j "$jobs" --target foehn_fuzzers
fi
((build_only)) && exit 0

# allocator_may_return_null: a C library's malloc of an absurd size (HDF5 sizing a heap from a
# corrupt header) returns NULL, as it does outside ASan, and the library reports the error; a
# C++ new of such a size still aborts. Leaks the uninstrumented libraries make on their own are
# not the readers' (lsan.supp says which).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_stack_use_after_return=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0}

# Re-runs each finding once (full stacks, a 5 s timeout; leaks need a corpus run to show) and
# prints its summary, the first frame in Foehn's sources and the first frame outside them, so
# that findings in third-party libraries stand out.
triage_findings() {
  local target=$1 artifact one output summary ours theirs
  one=$(mktemp -d)
  for artifact in "$build"/findings/"$target"/*; do
    [[ -f $artifact ]] || continue
    rm -f "$one"/* && cp "$artifact" "$one"/
    output=$(ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0 timeout 120 \
      "$build/bin/foehn-fuzz-$target" -runs=0 -timeout=5 -rss_limit_mb=2048 "$one" 2>&1 || true)
    summary=$(grep -m1 -E '^SUMMARY|^fuzz target:' <<<"$output" || echo "no finding when re-run")
    # Frames look like "#3 0x... in name /path/file.cpp:12:3" or "#4 0x... in name (/lib/x.so+0x..)".
    ours=$(grep -E "^ +#[0-9]+ .* $PWD/[^ ]+:[0-9]+" <<<"$output" |
           grep -vE "$PWD/(build|tests/fuzz)" | head -n 1 |
           sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in //' | cut -c1-160 || true)
    theirs=$(grep -E '^ +#[0-9]+ .*\((/usr)?/lib/' <<<"$output" |
             grep -vE 'libc\.so|libstdc\+\+|ld-linux' | head -n 1 |
             sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ (in )?//; s/\(BuildId: [0-9a-f]+\)//' | cut -c1-160 || true)
    printf '%s\n  %s\n  Foehn: %s\n  library: %s\n' "$(basename "$artifact")" "$summary" \
      "${ours:-none}" "${theirs:-none}"
  done
  rm -rf "$one"
}

status=0
for target in "${targets[@]}"; do
  if ((triage)); then
    echo "== $target"
    triage_findings "$target"
    continue
  fi
  # Absolute paths: the fuzzer runs in a work folder of its own, where fork mode (the parent's
  # copies of findings) and -jobs (fuzz-N.log) leave their files.
  scratch=$PWD/$build/scratch/$target
  findings=$PWD/$build/findings/$target
  log=$PWD/$build/logs/$target.log
  work=$PWD/$build/work/$target
  rm -rf "$scratch" "$work" "$findings"  # findings are this run's: keep older ones elsewhere
  mkdir -p "$scratch" "$findings" "$work" "$build/logs"
  cp tests/fuzz/corpus/"$target"/* "$scratch"/
  flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/")
  [[ -f tests/fuzz/$target.dict ]] && flags+=(-dict="$PWD/tests/fuzz/$target.dict")
  # Per-target flags (tests/fuzz/<target>.flags; '#' starts a comment).
  if [[ -f tests/fuzz/$target.flags ]]; then
    read -ra target_flags <<<"$(sed 's/#.*//' "tests/fuzz/$target.flags" | tr '\n' ' ')"
    flags+=("${target_flags[@]}")
  fi
  echo "fuzz: $target ${budget[*]} ${extra[*]} (log: $log)"
  fuzzer_status=0
  (cd "$work" && exec "$OLDPWD/$build/bin/foehn-fuzz-$target" "${flags[@]}" "${budget[@]}" \
    "${extra[@]}" "$scratch") >"$log" 2>&1 || fuzzer_status=$?
  grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" || true
  grep -E '^#[0-9]+: cov' "$log" | tail -n 1 || true  # fork mode's last status line
  if ((fuzzer_status != 0)) || [[ -n $(ls -A "$findings") ]]; then
    echo "fuzz: $target FOUND SOMETHING (exit $fuzzer_status): see $log and $findings" >&2
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz target:)' "$log" | head -5 >&2 || true
    status=1
  fi
done
exit "$status"
