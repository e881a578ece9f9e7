#pragma once
// Counters of one HBM channel controller, and the hbm_channel unit table built from them.

#include <cstdint>

#include "sim/stats/table.h"

namespace systole::models {

class HbmTiming;

/// Running counters of one channel controller.
struct HbmChannelStats {
  std::uint64_t reads = 0, writes = 0;              ///< requests served
  std::uint64_t read_bursts = 0, write_bursts = 0;  ///< column commands
  std::uint64_t activates = 0, precharges = 0;      ///< precharges include auto-precharges
  std::uint64_t refreshes = 0;
  double read_queue_area = 0, write_queue_area = 0;  ///< sum of occupancy x cycles
  std::int64_t bank_busy_cycles = 0;  ///< sum over banks of cycles open or precharging
};

/// One row per channel (stack<s>.ch<c>) over the model's whole run so far.
stats::Table hbm_channel_table(const HbmTiming& hbm);

}  // namespace systole::models
