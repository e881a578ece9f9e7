#!/usr/bin/env bash
# ICI network speed (issue 13; not a timed test): a 1 GiB all-reduce on a 16x16x16 TPU v4 torus
# (4096 chips, multi-axis torus algorithm) with the flow-level model — target <= 5 s on one
# core — and wall/CPU time vs chip count from 2x2x1 to 16x16x16 (bench_ici --scaling), then the
# 16x16x16 point three more times (the VM is shared: the CPU seconds are the steadier figure).
# Measured 2026-11-26 on the 2-core VM at load ~16: 16x16x16 1.3-1.9 CPU-s, 3.7-5.8 s wall;
# the table is in models/ici/README.md ("Speed").
#
#   tools/bench/ici_bench.sh [build dir]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$here/build}"
bench="$build/bin/bench_ici"
"$bench" --scaling
for i in 1 2 3; do "$bench" --shape 16x16x16 | tail -n 1; done
