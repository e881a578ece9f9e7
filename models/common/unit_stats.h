#pragma once
// The activity every program-executing unit counts (busy, stall, ops, bytes), per workload
// layer, and the stats that present it: plain C++, bound into the stats tree by the unit's
// component (dma, vector).

#include <cstdint>
#include <functional>
#include <string>

#include "sim/stats/stats_tree.h"
#include "sim/stats/timebase.h"

namespace systole::models {

/// Per-unit counters of one layer (or, summed, of the run).
struct UnitCounters {
  double busy_ps = 0;   ///< occupancy (for an MXU: streaming, not waiting for weights)
  double stall_ps = 0;  ///< waiting on dependencies with work queued
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  void add(const UnitCounters& o) {
    busy_ps += o.busy_ps;
    stall_ps += o.stall_ps;
    ops += o.ops;
    bytes += o.bytes;
  }
};

/// Reads a unit's counters in a scope (a layer, or stats::kRun for their sum).
using UnitCountersOf = std::function<UnitCounters(std::size_t scope)>;

/// Declares busy/idle/stall cycles, ops, bytes and utilization of one unit in `g`, for the run
/// and per layer; `what` names its ops ("transfers"). Cycles are `tb`'s; idle and utilization
/// are relative to the scope's span.
void declare_unit_stats(stats::StatGroup& g, const std::string& what, UnitCountersOf counters,
                        const stats::Timebase& tb);

}  // namespace systole::models
