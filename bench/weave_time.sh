#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Weave time of a realistic translation unit against `clang++ -fsyntax-only` of the same TU
# (parsing is the floor: the tool parses, then weaves and writes the lock inventory, as
# distlock_weave() runs it), as a ratio of medians in one run.
#
#   bench/weave_time.sh <distlock-weave> <clang++> <source> [runs] -- <compile flags>
set -euo pipefail
weave="$1" clangxx="$2" source="$3"
runs=11
shift 3
if [[ "${1:-}" != "--" ]]; then runs="$1"; shift; fi
[[ "${1:-}" == "--" ]] || { echo "usage: $0 <distlock-weave> <clang++> <source> [runs] -- <flags>" >&2; exit 2; }
shift
flags=("$@")
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

elapsed_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 </dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

weave_times=() parse_times=()
for ((i = 0; i < runs; i++)); do   # alternate, so both see the same machine load
  weave_times+=("$(elapsed_ms "$weave" "$source" -o "$scratch/woven.cpp" --locks-out "$scratch/locks.json" -- "${flags[@]}")")
  parse_times+=("$(elapsed_ms "$clangxx" -fsyntax-only "${flags[@]}" "$source")")
done
weave_median=$(printf '%s\n' "${weave_times[@]}" | median)
parse_median=$(printf '%s\n' "${parse_times[@]}" | median)
echo "source:                   $source"
echo "runs:                     $runs"
echo "distlock-weave (median):  ${weave_median} ms"
echo "clang++ -fsyntax-only:    ${parse_median} ms"
awk -v w="$weave_median" -v p="$parse_median" \
  'BEGIN { printf "ratio weave/parse:        %.2f (goal <= 1.20)\n", w / p }'
