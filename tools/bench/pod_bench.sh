#!/usr/bin/env bash
# tpu_pod speed (issue 13; not a timed test): one GPT-3 175B block (prefill, 2048 tokens) with
# 8-way tensor parallelism on a TPU v4 2x2x2 slice (batch 1), end to end through simrun (compile,
# one sc_start: the representative chip with bank-level HBM plus every ICI link, results
# file) — target <= 15 s — then the same with the bandwidth HBM model, and the 1 GiB
# all-reduce on 16x16x16 (tools/bench/ici_bench.sh measures the network alone).
# Wall and CPU seconds of each (the VM is shared: CPU seconds are the steadier figure).
#
#   tools/bench/pod_bench.sh [build dir]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$here/build}"
simrun="$build/bin/simrun"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
run() {  # label, simrun arguments...
  local label="$1"
  shift
  /usr/bin/time -f "$label: %e s wall, %U+%S s CPU" "$simrun" "$@" -q -j 1 -o "$out/r.h5"
}
cfg="$here/configs/tpuv4_pod.yaml"
one="-p system.ici.shape=2x2x2 -p system.ici.link_bandwidth=50GB/s -p workload.params.batch=1"
# shellcheck disable=SC2086
run "GPT-3 block, 8-way TP, 2x2x2, bank-level HBM" "$cfg" $one
# shellcheck disable=SC2086
run "GPT-3 block, 8-way TP, 2x2x2, bandwidth HBM" "$cfg" $one \
  -p system.chip.hbm.model=bandwidth
run "1 GiB all-reduce, 16x16x16 torus (4096 chips)" "$here/configs/tpuv4_allreduce_sweep.yaml" \
  -p system.ici.shape=16x16x16 -p workload.params.mib=1024
