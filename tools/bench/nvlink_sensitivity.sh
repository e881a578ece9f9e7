#!/usr/bin/env bash
# Sensitivity of the NCCL all-reduce bus bandwidth at 16 MB and 1 GB to every ASSUMPTION of the
# HGX presets (models/nvlink/README.md): each moved alone to the ends of its stated range.
#   tools/bench/nvlink_sensitivity.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=${1:-$root/build}/bin/bench_nvlink
busbw() {  # preset, size, extra args -> busbw
  "$bench" "$root/configs/presets/$1" --min "$2" --max "$2" "${@:3}" | awk '$1 ~ /^[0-9]+$/ {print $8}'
}
row() {  # preset, label, args
  printf "%-14s %-28s %8s %8s\n" "$1" "$2" "$(busbw "$1" 16777216 "${@:3}")" "$(busbw "$1" 1073741824 "${@:3}")"
}
printf "%-14s %-28s %8s %8s\n" preset "change" "16MB" "1GB"
for p in hgx_a100_8.yaml hgx_h100_8.yaml; do
  row $p "(preset)"
  for kv in link_efficiency=0.75 link_efficiency=0.94 link_latency_ns=100 link_latency_ns=1000 \
            switch_latency_ns=50 switch_latency_ns=500 packet_size=64 credits=512 \
            nccl_channels=8 nccl_channels=32; do
    row $p "$kv" --set "$kv"
  done
  if [ $p = hgx_h100_8.yaml ]; then
    for kv in nvls_window=2 nvls_window=8; do
      row $p "$kv" --set "$kv"
    done
  fi
done
