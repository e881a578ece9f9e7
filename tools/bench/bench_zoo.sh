#!/usr/bin/env bash
# Simulator speed on the zoo (not a timed test): wall seconds of one design point, one worker
# process, on the TPU v4 preset, for ResNet-50 at batch 8 and one GPT-3 175B block (prefill of
# 2048 tokens), plus the whole default sweep configs/tpuv4.yaml. Targets (issue 10): ResNet-50
# batch 8 <= 1.5 s, the GPT-3 block <= 10 s, configs/tpuv4.yaml <= 30 s on 2 cores. Measured
# 2026-11-25 on the 2-core VM (a host 1.7x slower than the one before): 2.6 s, 20-21 s, 38 s.
# 2026-11-26, after the HBM FR-FCFS walk (models/hbm/README.md), the VM loaded by other builds
# (load average 7-15, so user CPU seconds; medians of 3 interleaved runs, before -> after):
# ResNet-50 2.88 -> 2.48 s, GPT-3 block 20.56 -> 18.65 s; configs/tpuv4.yaml 79.2 -> 65.3 s
# (one run each; wall 534 -> 338 s at that load).
# 2026-11-26, HBM windows as long as the ports' response latency (models/hbm/README.md, "Long
# windows"; user CPU seconds, medians of 3 interleaved runs, load 8-10, before -> after):
# ResNet-50 2.92 -> 2.77 s, GPT-3 block 21.84 -> 20.47 s; configs/tpuv4.yaml 84.0 -> 75.9 s (one
# run each). Every target is still missed (the bank-level HBM's ~990 instructions per burst).
# 2026-11-26, HBM column slots in age order and row scans skipped (models/hbm/README.md,
# "Cheaper decisions"; ~1,003 -> ~802 instructions per burst of bench_hbm's tile read; user CPU
# seconds, medians of 3 interleaved runs, load 4.6-7.1, on a host now about twice as fast as
# above): ResNet-50 1.38 -> 1.12 s, GPT-3 block 11.08 -> 9.49 s; configs/tpuv4.yaml 42.57 ->
# 35.07 s user CPU (one run each, load 7-9; wall 81 -> 71 s, over the 30 s target). On this
# host the first two are under their targets; the targets were set on the slower host, where
# the new code was not timed.
#
#   tools/bench/bench_zoo.sh [build dir]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$here/build}"
simrun="$build/bin/simrun"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

point() {  # name, workload file, params
  cat > "$tmp/$1.yaml" <<YAML
base: $here/configs/presets/tpuv4_chip.yaml
workload: {file: $here/workloads/$2, params: $3}
YAML
  local t0 t1
  t0=$(date +%s%N)
  "$simrun" "$tmp/$1.yaml" -o "$tmp/$1.h5" --jobs 1 --quiet
  t1=$(date +%s%N)
  awk -v n="$1" -v ns=$((t1 - t0)) 'BEGIN { printf "%-28s %8.2f s wall\n", n, ns / 1e9 }'
}

echo "Systole zoo benchmark ($("$simrun" --version))"
point resnet50_batch8 resnet50.yaml "{batch: 8}"
point gpt3_block_prefill2048 gpt3_175b.yaml "{batch: 1}"
t0=$(date +%s%N)
"$simrun" "$here/configs/tpuv4.yaml" -o "$tmp/all.h5" --jobs 2 --quiet
t1=$(date +%s%N)
awk -v ns=$((t1 - t0)) 'BEGIN { printf "%-28s %8.2f s wall (16 points, 2 jobs)\n", "configs/tpuv4.yaml", ns / 1e9 }'
