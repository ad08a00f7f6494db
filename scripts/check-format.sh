#!/usr/bin/env bash
# Checks that every C, C++ and CUDA file changed since the formatting baseline (the commit in
# .clang-format-baseline, from which on changed files are kept formatted) follows .clang-format.
# Files nobody has touched since keep their old layout until they are changed. Run by
# scripts/run-tests.sh; exit 1 lists the files to run `clang-format -i` on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
baseline=$(cat .clang-format-baseline)
if ! command -v clang-format >/dev/null; then
  echo "check-format: clang-format is missing (apt install clang-format)" >&2
  exit 1
fi
if ! git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null; then
  echo "check-format: the baseline $baseline is not in this clone's history (shallow clone?): skipped"
  exit 0
fi
# Committed changes since the baseline, and changes not committed yet.
mapfile -t files < <({ git diff --name-only --diff-filter=d "$baseline" HEAD
                       git diff --name-only --diff-filter=d HEAD
                       git ls-files --others --exclude-standard; } |
                     grep -E '\.(c|h|cc|cpp|hpp|cu|cuh)$' | sort -u)
unformatted=()
for file in "${files[@]}"; do
  [[ -f $file ]] || continue
  clang-format --dry-run --Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done
if ((${#unformatted[@]})); then
  echo "check-format: ${#unformatted[@]} changed file(s) do not follow .clang-format:" >&2
  printf '  clang-format -i %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} file(s) changed since ${baseline:0:7}, all formatted"
