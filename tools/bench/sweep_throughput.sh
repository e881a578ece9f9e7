#!/usr/bin/env bash
# Sweep throughput (not a timed test): GEMM design points per minute on the TPU v4 preset
# (bank-level HBM, the default), one layer per point, shapes up to 2048^3: m in 25 values,
# n and k in 20 values each from 128 to 2048 = 10,000 points. Target (issue 14): >= 10,000
# points per minute on 2 cores. Prints wall time, user+system CPU seconds and points per
# minute of wall time.
#
# Measured 2026-11-26 on the 2-core VM under load (average 17 from other builds), 400 points
# (m 5 x n 8 x k 10 values): 156 s wall, 23.2 s CPU, i.e. 58 ms CPU per point: at most ~2,100
# points/minute on 2 idle cores for this shape mix, below the 10,000 target; main's simrun on
# the same file, same minute: 22.6 s CPU (stable ids, fingerprints and shards cost nothing
# measurable).
#
# Later the same day (load 9-12), 400 points, medians of 3 runs interleaved before/after:
# before (24a4f24) 21.3 s CPU (53 ms/point), 88 s wall, 272 points/minute; after the worker
# zygote and the small HDF5 write buffers 17.7 s CPU (44 ms/point), 65 s wall, 370
# points/minute: ~2,700 points/minute on 2 idle cores. Every point's results identical
# (all datasets outside /meta but wall_seconds, 79,600 cycle values). Where one point's CPU
# goes after (perf record -g --call-graph dwarf, parent, zygote and workers): the bank-level
# HBM model (HbmModule::sync) 76% (~33 ms); the parent 9% (writing the point into the
# results file 5%, 1.6% of it H5Fflush); fork in the zygote 3%; page faults 3.6% (was 7.3%:
# the zygote keeps the parent's growth and its CoW writes away from the workers); compiling
# the GEMM mapping twice (the parent's check and the worker) 2.7%; the stats tree 1.3%;
# SystemC elaboration 1% and kernel start 0.6%; config resolution and fingerprint (YAML)
# 1.4%; the result's transfer (serialize + deserialize) 0.4%; exit 0.1%. The 10,000 target
# needs <= 12 ms CPU per point: the HBM model alone is ~3x over it on this mix. On 40 small
# points (m, n, k <= 640, 4 x 5 x 2 values) the overhead dominated: 0.71 -> 0.55 s CPU (18 ->
# 14 ms/point), minor faults 58,800 -> 23,200, system time 0.32 -> 0.11 s; before, the parent
# was 62% of the CPU, a third of it zero-filling HDF5's default 1 MiB conversion buffers.
#
# 2026-11-27 (load 4-5, Release without LTO, 400 points, 2 runs interleaved): before the HBM
# completion-bound heaps 9.8 / 10.5 s CPU, after 10.0 / 10.8 s (~25 ms/point; the change helps
# GPU points with many transfers in flight, costs the TPU path ~1.5% instructions); results
# identical. Still ~2x over the 12 ms/point the 10,000 target needs: the HBM's per-burst
# decisions (HbmController::decide ~29% of the samples) dominate.
#
# 2026-11-27, later (fresh clone, Release with LTO, otherwise idle): 10,000 points 208.6 s
# wall, 381.9 s CPU, 2,876 points/minute (2,000 points: 30.2 s wall, 55.8 s CPU, 3,969/min;
# the mixes differ in their shapes). Outside the HBM (the 400 points with
# -p system.chip.hbm.model=bandwidth, builds without LTO, 2 runs each interleaved): 2.51 / 2.34
# -> 1.88 / 1.79 s CPU (6.1 -> 4.6 ms a point) after: the TPU GEMM mapper keeping only the
# candidates within its cost band of the best so far (page faults -14%), the results writer's
# evict_on_close (H5C_set_slist_enabled, walked at every point's flush, 7.2% -> 1.7% of the
# CPU), the zygote's malloc_trim before forking (the page-table copy 6.6% -> 3.3%) and a direct
# YAML writer (yaml-cpp's emitter was 8.5%). Bank-level: 9.38 / 9.34 -> 9.04 / 9.14 s CPU.
#
# 2026-11-27 (hbmcost, the HBM's lean decision path: models/hbm/README.md "A leaner decision";
# Release without LTO, the VM shared, load 10-12): 400 points 9.0 / 9.6 / 9.5 -> 8.2 / 9.1 /
# 9.2 s CPU (the last two pairs interleaved), every point's results identical; callgrind on one
# 2048^3 point's worker 562.4 -> 476.0 M instructions. Issue 14's target stays missed.
# Fresh clone of 74a3489 (with it), Release with LTO, idle host: 10,000 points 198.3 s wall,
# 361.3 s CPU, 3,026 points/minute (2,876 at d752aea).
# Fresh clone of e029cda (TPU v1's host link, not declared by this preset, and the merge check
# added), idle host: 204.9 s wall, 373.7 s CPU, 2,928 points/minute.
#
# 2026-11-27 (the session after; Release without LTO, idle host, one run each, consecutive):
# 10,000 points 198.5 s wall, 362.5 s CPU, 3,023 points/minute at 73f9bfe -> 145.3 s wall,
# 272.5 s CPU, 4,130 points/minute after the sweep fixes below; every point's results the same
# (all datasets and attributes as text, wall seconds and /meta aside). Profile first (perf,
# JOBS=1, the host's other core busy): the CPU outside the workers' simulations grew with the
# sweep (4.5 ms a point at 400 points, 6.5 at 2,000, 12.6 at 10,000): the worker zygote, forked
# after the parent had expanded every point (~20 KB of resolved config tree each, 196 MB RSS at
# 10,000), spent 14% of all samples copying page tables (copy_page_range) per fork, and the
# parent kept every PointResult whole (932 MB RSS at 10,000). Now the parent keeps points
# without their trees and each worker rebuilds its own from the sweep's plan
# (RunnerOptions::resolve), the parent keeps only what its summary reads of a written point
# (stats::keep_for_summary), and a freed worker slot is refilled before the finished point is
# written. JOBS=1 on the same host: 10,000 points 365.2 -> 287.1 s wall (workers' own time 239 s
# and 242 s), parent RSS 60 MB at 20 s in. What is left is the simulation itself (the bank-level
# HBM ~65% of the samples): ~24 ms CPU a point on this mix against the 12 ms the target needs.
# 2026-11-27, evening (Release without LTO, idle host, one run): 10,000 points 136.9 s wall,
# 257.4 s CPU, 4,382 points/minute. Later (another idle 2-core host): 128.7 s wall, 242.3 s CPU,
# 4,664 points/minute; again 121.4 s, 228.7 s, 4,941. `perf record -a` on that run: kernel time
# 22.6% of the samples (workers' exit unmap 2.0%, copy-on-write of the zygote's malloc free
# lists 1.8%, page faults 1.5%, the rest thin), the parent 6.6%, the zygote's forks 2.7%; system
# time per point grows with the sweep (2.7 ms at 2,000 points, 5.1 ms at 10,000; not
# explained). glibc.malloc.hugetlb=1 for the workers changed nothing beyond noise.
# 2026-11-28 (428e3e4, Release without LTO, idle host): 400 points 4.5 s wall, 8.2 s CPU, 5,294
# points/minute. perf over that run: HbmController::decide_lean 39% of the samples (reads 26%,
# writes 14%), the HBM's other steps ~33%, kernel 12%, libc 4%, HDF5 4%. 400 points of m, n in
# 128..200 and k in 128..152 (the per-point floor): 2.3 s CPU, 5.7 ms a point, 2.2 ms of it
# system time; about a third of the parent's samples are HDF5 writes.
#
#   tools/bench/sweep_throughput.sh [build dir] [points: 10000 | 2000 | 400]
#   SHARDS=100 tools/bench/sweep_throughput.sh ...   # as 100 --shard processes, one after the
#                                                    # other, into $OUT/results.shard-*-of-100.h5
#   OUT=dir keeps the results files there (default: a temporary folder)
#   JOBS=N runs N workers (default: the core count)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)"
points="${2:-10000}"
simrun="$build/bin/simrun"
shards="${SHARDS:-1}"
if [ -n "${OUT:-}" ]; then
  out="$OUT"
  mkdir -p "$out"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi

# Axis lists with n values from 128 to 2048 (rounded to multiples of 8).
axis() { awk -v n="$1" 'BEGIN { s = "["; for (i = 0; i < n; ++i) { v = 128 + int((2048 - 128) * i / (n - 1) / 8) * 8; s = s (i ? ", " : "") v } print s "]" }'; }
case "$points" in
  10000) nm=25 nn=20 nk=20 ;;
  2000) nm=10 nn=10 nk=20 ;;
  400) nm=5 nn=8 nk=10 ;;
  *) echo "points: 10000, 2000 or 400" >&2; exit 2 ;;
esac
cat > "$out/gemm_sweep.yaml" <<YAML
name: gemm-throughput
base: $here/configs/presets/tpuv4_chip.yaml
workload:
  name: gemm
  params: {m: 128, n: 128, k: 128}
  layers:
    - {name: g, m: m, n: n, k: k}
sweep:
  workload.params.m: $(axis $nm)
  workload.params.n: $(axis $nn)
  workload.params.k: $(axis $nk)
output: {summary: false}
YAML

echo "Systole sweep throughput ($("$simrun" --version)), $points GEMM points, $(nproc) cores"
cd "$out"
TIMEFORMAT="%U %S"
t0=$(date +%s%N)
if [ "$shards" -le 1 ]; then
  cpu=$( { time "$simrun" gemm_sweep.yaml -o results.h5 --jobs "${JOBS:-$(nproc)}" -q >/dev/null; } 2>&1 )
else
  cpu=$( { time for ((i = 0; i < shards; ++i)); do
      "$simrun" gemm_sweep.yaml --shard "$i/$shards" --jobs "${JOBS:-$(nproc)}" -q >/dev/null
    done; } 2>&1 | tail -1 )
fi
t1=$(date +%s%N)
awk -v ns=$((t1 - t0)) -v n="$points" -v cpu="$cpu" -v s="$shards" 'BEGIN {
  split(cpu, c, " ");
  printf "%d points%s: %.1f s wall, %.1f s CPU (user+sys), %.0f points/minute\n",
         n, (s > 1 ? " as " s " shards" : ""), ns / 1e9, c[1] + c[2], n / (ns / 1e9) * 60 }'
