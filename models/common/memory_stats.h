#pragma once
// A memory's running totals as DMA engines see it through MemoryIf (bytes each way, busy time,
// peak bandwidth), and the stats that present them: plain C++, bound into the stats tree by
// the system that owns the memory.

#include <cstdint>
#include <functional>

#include "sim/stats/stats_tree.h"
#include "sim/stats/timebase.h"

namespace systole::models {

/// Running totals of a memory, for the unit tables.
struct MemoryCounters {
  std::uint64_t bytes_read = 0, bytes_written = 0;
  double busy_ps = 0;  ///< time with a transfer in progress
  double peak_bytes_per_second = 0;
};

/// Declares a memory's whole-run stats in `g` (bytes each way, busy/idle cycles, achieved
/// bandwidth and its share of the peak); `counters` is read when a stat is.
void declare_memory_stats(stats::StatGroup& g, std::function<MemoryCounters()> counters,
                          const stats::Timebase& tb);

}  // namespace systole::models
