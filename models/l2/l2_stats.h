#pragma once
// Counters of the L2 (hits and misses per line and per sector, merged misses, evictions,
// write-backs, bytes each way and per slice, far-partition accesses) and the stats bound into
// the stats tree from them (the l2 unit, one l2_slice group per slice).

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/stats/stats_tree.h"

namespace systole::models {

class L2Timing;
struct L2Config;

/// Running counters of the whole L2; exact integers.
struct L2Counters {
  std::uint64_t transfers = 0;                      ///< upstream transfers accepted
  std::uint64_t bytes_read = 0, bytes_written = 0;  ///< upstream, as requested
  std::uint64_t line_accesses = 0;       ///< line lookups (a line touched by two rows: 2)
  std::uint64_t line_hits = 0;           ///< line present, every needed sector valid
  std::uint64_t line_sector_misses = 0;  ///< line present, some sector to fetch
  std::uint64_t line_misses = 0;         ///< line absent: allocated
  std::uint64_t sector_accesses = 0;     ///< sectors touched
  std::uint64_t sector_hits = 0;         ///< touched and valid
  std::uint64_t sector_misses = 0;       ///< touched and not valid (allocated)
  std::uint64_t sectors_fetched = 0;     ///< read from memory (misses that need the data)
  std::uint64_t sectors_merged = 0;      ///< valid but still in flight from memory: waited
  std::uint64_t evictions = 0;           ///< valid lines replaced
  std::uint64_t writebacks = 0;          ///< evicted lines with dirty sectors
  std::uint64_t writeback_sectors = 0;   ///< dirty sectors written back
  std::uint64_t far_accesses = 0;        ///< line lookups homed in a far partition
  std::uint64_t fetch_transfers = 0, fetch_bytes = 0;          ///< downstream reads
  std::uint64_t writeback_transfers = 0, writeback_bytes = 0;  ///< downstream writes
  std::vector<std::uint64_t> slice_bytes;                      ///< sector bytes each slice moved
};

/// Declares the L2's whole-run stats in `g` and one group per slice (slice<i>, kind l2_slice)
/// below it; `timing` returns the model when a stat is read. With `pattern` it declares one
/// slice<i> group, for --describe.
void declare_l2_stats(stats::StatGroup& g, const L2Config& cfg,
                      std::function<const L2Timing&()> timing, bool pattern = false);

}  // namespace systole::models
