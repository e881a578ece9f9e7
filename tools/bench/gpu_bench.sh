#!/usr/bin/env bash
# Wall time of the GPU device benchmarks (issue 11's speed targets), one design point each on
# one core (-j 1): an H100 8192^3 bf16 GEMM at full fidelity (target <= 2 s) and a
# FlashAttention-3 forward at seq 8192 (target <= 5 s). Usage:
#   tools/bench/gpu_bench.sh [build dir]
# Measured (CPU s; models/gpu_sm/README.md "Where the device's time goes"): on the shared 2-core
# build host GEMM ~60 s, FA-3 6.5 -> 6.0 s after the finisher/L2 merge changes (load 10-14); on a
# quiet 16-core Xeon GEMM 43 s, FA-3 4.4 s, unchanged by them. 2026-11-26 (gpufast, same host,
# load 1-8, 192x160 tiles now): GEMM 23.8-28.8 s, FA-3 2.4-3.3 s (FA-3 target met; the L2 walk
# change moved neither beyond noise). GEMM target not met: the bank-level HBM takes ~64%
# (perf), the L2's ~10^8 line lookups 17%, the SMs' stepper and SystemC ~8% each.
# 2026-11-27 (hbmspeed2, same host, load ~5, Release without LTO, one run each): the HBM's
# completion bound read off heaps instead of a scan over every transfer, idle channels skipped
# (models/hbm/README.md "The completion bound"): GEMM 25.1 -> 17.2 s user CPU, FA-3 2.47 ->
# 2.44 s; results identical. GEMM target still missed.
# 2026-11-27 (hbmcost, same host, load ~12, one run each): the HBM's lean decision path
# (models/hbm/README.md "A leaner decision"): GEMM 22.8 -> 21.1 s user CPU, results identical;
# callgrind on a 2048^3 GEMM 1,251.8 -> 1,193.3 M instructions. GEMM target still missed.
# Fresh-clone Release build with LTO of 74a3489, idle host (load 0.5): GEMM 15.0 s (17.7 s at
# d752aea), FA-3 2.3 s.
# Fresh-clone LTO build of e029cda (warm-up passes settle the clock; warmup 0 as before), idle
# host: GEMM 15.8 / 16.0 s, FA-3 2.27 / 2.30 s; interleaved with 6f480fd the host was noisy
# (6f480fd 18.9 and 22.4 s, e029cda 22.7 and 18.3 s): no change beyond it.
# 2026-11-28 (TMA multicast in 2x1 clusters, aaab377; Release without LTO, idle host, two runs
# each interleaved, before -> after): GEMM 18.0 / 19.0 -> 28.4 / 24.1 s wall, FA-3 2.6 / 3.2 ->
# 3.5 / 2.6 s (FA-3 runs no clusters: noise). The GEMM's 192x160 tiles leave 43 tile rows, odd,
# so it now runs without a cluster, and the mapper then picks swizzle 2 over 4: the device
# moves 2.46 GiB from HBM instead of 1.8 GiB (2,152,291 -> 2,154,158 cycles), and the
# bank-level HBM's work grows with those bytes.
# 2026-11-28 (L2 crossbar and ports measured on an H200, the mapper's L2 roofline now the
# crossbar's 5040 B/clk; Release without LTO, idle host, one run): GEMM 15.9 s wall (15.5 s user
# CPU), FA-3 2.39 s. The mapper now picks 128x256 tiles in 2x1 clusters, swizzle 8: 1.51 GiB
# from HBM (was 192x160, no cluster, 2.46 GiB), 2,146,243 cycles (was 2,154,158). GEMM target
# (2 s) still missed.
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
