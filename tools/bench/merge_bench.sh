#!/usr/bin/env bash
# simrun merge speed (not a timed test): 100 shard files holding 10,000 GEMM design points in
# all (tools/bench/sweep_throughput.sh run as 100 --shard processes: its points/minute is
# printed too), then `simrun merge` of the 100 files, timed. Target (issue 14): <= 10 s.
#
#   tools/bench/merge_bench.sh [build dir] [points: 10000 | 2000 | 400] [shards: 100]
#   OUT=dir keeps (and reuses) the shard files there
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)"
points="${2:-10000}"
shards="${3:-100}"
simrun="$build/bin/simrun"
if [ -n "${OUT:-}" ]; then
  out="$OUT"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
if [ ! -f "$out/results.shard-$((shards - 1))-of-$shards.h5" ]; then
  OUT="$out" SHARDS="$shards" "$here/tools/bench/sweep_throughput.sh" "$build" "$points"
fi
cd "$out"
rm -f merged.h5
files=$(ls results.shard-*-of-"$shards".h5)
echo "merging $(echo "$files" | wc -l) files, $(du -ch $files | tail -1 | cut -f1) in all"
t0=$(date +%s%N)
# shellcheck disable=SC2086
"$simrun" merge merged.h5 $files
t1=$(date +%s%N)
awk -v ns=$((t1 - t0)) 'BEGIN { printf "merge: %.2f s wall\n", ns / 1e9 }'
