#!/usr/bin/env bash
# Wall time of the GPU device benchmarks (issue 11's speed targets), one design point each on
# one core (-j 1): an H100 8192^3 bf16 GEMM at full fidelity (target <= 2 s) and a
# FlashAttention-3 forward at seq 8192 (target <= 5 s). Usage:
#   tools/bench/gpu_bench.sh [build dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${SYSTOLE_BUILD_DIR:-$here/../../build}}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# CPU seconds are printed beside wall seconds: on a loaded machine the wall time overstates.
TIMEFORMAT='%R s wall, %U s user CPU'
for exp in gpu_gemm_8192 gpu_fa3_8192; do
  printf '%-16s ' "$exp"
  time "$build/bin/simrun" "$here/$exp.yaml" -j 1 -q -o "$out/$exp.h5"
done
