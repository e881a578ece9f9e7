#!/usr/bin/env bash
# simrun merge speed (not a timed test): FILES shard files (default 100) holding POINTS design
# points in all (default 10,000), then `simrun merge` of all of them, timed. Target (issue 14):
# 100 files of 10,000 points merged in <= 10 s on 2 cores. The shard files hold copies of a real
# simulated GEMM point (bench_merge_make), so every point has the tables a run writes: layers,
# units/{mxu,mxu_layers,dma,memory,vmem,hbm_channel}, metrics, assignments, config.
#
# Measured 2026-11-26 on the 2-core VM, load average 8-12 from other builds: 100 files, 10,000
# points, 345 MB: 35.5 s wall, 30.1 s CPU (target not met). After /sweep was built from the
# inputs' /sweep tables (the merge also runs in a child process since, for crash isolation),
# interleaved with the build before it at load average 12-14: 51.2 and 61.6 s wall, 28.0 and
# 30.2 s CPU before; 37.1 and 39.4 s wall, 19.4 and 20.1 s CPU after (target still not met;
# H5Ocopy of the points' ~11 objects each is ~2/3 of what is left). A profile of 1,000 points: H5Ocopy
# of the point groups ~55% (their vlen-string attributes ~20%), closing (flushing) the output
# ~13%, reading the inputs' point attributes and tables ~20%. Reading a table once callocked a
# 1 MiB conversion buffer (now sized to the table: -45% CPU on 1,000 points).
#
# 2026-11-26, later (same 100 files / 10,000 points, 345 MB; simrun before and after run in
# turn, 3 each, at load average 11-18 from 4 other helpers' builds, so wall is 2-4 min and only
# CPU compares): 24.7 s CPU (median; 24.4-27.0) before, 20.2 s (19.8-22.0) after raising
# HDF5's free-list limits during the merge (h5::FreeListLimits). Earlier the same day at load
# 10: 65 s wall, 26.4 s CPU. Target still not met. Profile (perf record --call-graph dwarf,
# 1,000 points, after), in shares of the whole merge: H5Ocopy 83% (within it: attribute copies
# ~25-30%, the vlen conversion through the global heaps ~20%, metadata cache inserts and
# evictions ~18%, the datasets' raw data ~10%), closing each input (freeing its cached
# headers) 7%, reading the inputs' /meta and point attributes 4%, writing /sweep and closing
# the output 2%; libc malloc/free ~20% and pread/pwrite ~11% (49 preads and 27 pwrites per
# point) inside those. The remaining cost is
# HDF5 1.10's per-object copy (~1.5 ms per point of 12 objects and 35 vlen-string attributes).
# Measured and rejected (no gain beyond the +-15% noise of this host, or slower): one
# H5Ocopy of an input's whole /points group then links moved; the core driver for the output
# (with backing store) or the inputs; libver bounds latest; a 64 MiB fixed metadata cache
# (less eviction, but the same work moves to the final flush); H5Pset_meta_block_size and
# small_data_block_size 64 KiB-1 MiB; copying without H5Ocopy (re-creating each dataset and
# attribute from raw H5Dread/H5Aread bytes: 2.3x slower). 10 s on 2 cores would need the copy
# split over both cores, which one HDF5 file cannot take from two processes.
#
# 2026-11-26, third pass (issue 14; same 100 files / 10,000 points; before and after run in
# turn, 6 each in two series, at load average 5-7 from other helpers' builds): before 9.4 s
# CPU (median; 9.0-9.8), 18.5 s wall (14.6-20.2); after writing a point's small datasets
# (< 16 KiB: its tables and config text) in compact layout, inside their object headers, so
# that H5Ocopy has no raw-data block to copy: 8.8 s CPU (7.8-9.4), 17.9 s wall (13.2-18.9),
# 341 MB (the first series -9% CPU, the second -2%). At load
# 3.5 the merge before took 8.2-9.1 s CPU and 9.7-13.6 s wall: the 10 s target is met only on
# an otherwise idle VM. Profile after (perf --call-graph dwarf, the 10,000 points), in shares
# of the whole merge: H5Ocopy 87% (within it, overlapping: metadata cache evictions 36%, i.e.
# serialising, writing and freeing decoded headers; loading the inputs' headers 22%; attribute
# copies 27%, their vlen strings through the global heaps 23%), closing the inputs 6.5%,
# reading the inputs' point attributes 4.5%, finishing the output 0.4%; malloc/free ~17%
# inside those. Measured and rejected (H5Ocopy of 1,000 points alone, 0.7-0.9 CPU-s): libver
# bounds v18 for inputs and output; creation-ordered (compact-link) point groups; a fixed
# 64-128 MiB metadata cache for the output (copy -12%, closing +0.4 s); the core driver for the
# inputs; glibc malloc tunables (tcache, trim, top pad): none beyond the noise. Copying with
# H5O_COPY_WITHOUT_ATTR_FLAG (a bound, not a merge: attributes dropped) still costs 0.54 CPU-s
# per 1,000 points: the ~12 objects per point alone cost ~5 s per 10,000 points in HDF5 1.10,
# and reading and re-writing points (read_points + write_point) costs 12.8 + 14.4 s.
#
# 2026-11-27 (issue 15: merge checks every input's points in a second child beside the copying
# one, stats::check_points, structure only; same 100 files / 10,000 points, 341 MB; before =
# main 6f480fd, after = branch mergecheck, the same Release build without LTO; run in turn,
# before, after, before, after, at load average 3.0, 2.3, 1.9, 1.6 from other helpers): before
# 8.51 and 8.14 s wall, 8.51 and 8.13 s CPU; after 8.70 and 8.86 s wall, 14.15 and 13.92 s CPU.
# The check costs ~5.7 CPU-s (H5Dopen of every table ~30% of it, reading attributes' types and
# shapes ~25%, opening and closing the inputs ~20%) but runs on the other core, so wall grows
# ~0.5 s while a core is free; at load 4-5 (three pairs the same morning) it was 14.2-18.3 s wall
# after vs 9.3-10.5 s before (one before run 31.4 s), CPU 15.3-17.6 s vs 8.6-11.9 s. Rejected:
# the full reader (read_point) before each H5Ocopy in the same child, +8 CPU-s (sharing the
# input's metadata cache did not make H5Ocopy cheaper); the structure check there, +3.5-5 CPU-s
# on the one core, so more wall than beside it.
#
#   tools/bench/merge_bench.sh [build dir] [files] [points]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)"
files="${2:-100}"
points="${3:-10000}"
simrun="$build/bin/simrun"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$out"
cat > one.yaml <<YAML
base: $here/configs/presets/tpuv4_chip.yaml
workload: {layers: [{name: g, m: 512, n: 512, k: 512}]}
sweep: {system.chip.mxu.rows: [64, 128, 256]}
YAML
"$simrun" one.yaml -o template.h5 -q --jobs 1
"$build/bin/bench_merge_make" template.h5 . "$files" "$points"
echo "Systole merge benchmark ($("$simrun" --version)): $files files, $points points," \
  "$(du -ch results.shard-*.h5 | tail -1 | cut -f1) in all"
TIMEFORMAT="%R %U %S"
t=$( { time "$simrun" merge merged.h5 results.shard-*-of-"$files".h5 >/dev/null; } 2>&1 )
echo "$t" | awk '{ printf "simrun merge: %.2f s wall, %.2f s CPU (user+sys)\n", $1, $2 + $3 }'
"$simrun" merge -q check.h5 merged.h5  # the merged file reads back whole
