#!/usr/bin/env bash
# simrun merge of corrupt inputs (issue 15; not a test): a 2-shard sweep of 6 small GEMM points,
# then TRIALS damaged copies of shard 1 (and each file of tests/data/fuzz) merged with shard 0 by
# build/bin/merge_corrupt, which counts the outcomes (see tools/reliability/merge_corrupt.cpp)
# and keeps each wrong one in WORKDIR. Exit 1 when any merge wrote a file that does not read
# back or holds other points than its inputs.
#
#   tools/reliability/merge_corrupt.sh [build dir] [trials] [seed] [workdir]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)"
trials="${2:-2000}"
seed="${3:-1}"
work="${4:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"
cat > sweep.yaml <<YAML
name: merge-corrupt
base: $here/configs/presets/tpuv4_chip.yaml
workload: {layers: [{name: a, m: 256, n: 512, k: 384}, {name: b, m: 8, n: 1024, k: 1024}]}
sweep:
  system.chip.mxu.rows: [64, 128]
  system.chip.hbm.bandwidth: [0.6TB/s, 1.2TB/s, 2.4TB/s]
YAML
for s in 0 1; do "$build/bin/simrun" sweep.yaml -q --jobs 1 --shard "$s/2" -o "shard$s.h5"; done
echo "merge_corrupt: $trials damaged copies of shard1.h5 ($(stat -c %s shard1.h5) B), seed $seed," \
  "and the files of tests/data/fuzz, in $work"
"$build/bin/merge_corrupt" "$build/bin/simrun" shard0.h5 shard1.h5 "$work/cases" "$trials" \
  "$seed" "$here"/tests/data/fuzz/*.h5
