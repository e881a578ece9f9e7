#pragma once
// The stats of one vector unit, bound into the stats tree: its unit activity (busy, stall,
// vector ops) and the lane operations it executed.

#include <cstdint>
#include <functional>

#include "models/common/unit_stats.h"

namespace systole::models {

/// Declares one vector unit's stats in `g`, for the run and per layer; `lane_ops(scope)` reads
/// its lane operations.
void declare_vector_stats(stats::StatGroup& g, UnitCountersOf counters,
                          std::function<std::uint64_t(std::size_t scope)> lane_ops,
                          const stats::Timebase& tb);

}  // namespace systole::models
