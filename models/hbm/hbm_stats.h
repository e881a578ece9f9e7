#pragma once
// Counters of one HBM channel controller, and the per-channel stats bound into the stats tree
// from them (the hbm_channel unit table).

#include <cstdint>
#include <functional>

#include "sim/stats/stats_tree.h"

namespace systole::models {

class HbmTiming;
struct HbmConfig;

/// Running counters of one channel controller.
struct HbmChannelStats {
  std::uint64_t reads = 0, writes = 0;              ///< requests served
  std::uint64_t read_bursts = 0, write_bursts = 0;  ///< column commands
  std::uint64_t activates = 0, precharges = 0;      ///< precharges include auto-precharges
  std::uint64_t refreshes = 0;
  double read_queue_area = 0, write_queue_area = 0;  ///< sum of occupancy x cycles
  std::int64_t bank_busy_cycles = 0;  ///< sum over banks of cycles open or precharging
};

/// Declares, below the HBM's group, one group per channel (stack<s>.ch<c>, kind hbm_channel)
/// with its whole-run stats; `timing` returns the bank-level model when a stat is read. With
/// `pattern` it declares one stack<s>.ch<c> group, for --describe.
void declare_hbm_channel_stats(stats::StatGroup& hbm, const HbmConfig& cfg,
                               std::function<const HbmTiming&()> timing, bool pattern = false);

}  // namespace systole::models
