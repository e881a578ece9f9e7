#pragma once
// The clock and the layer spans stats are normalised by: the system fills it in after
// simulating; formulas read it to turn picoseconds into cycles and to divide by a scope's length.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/stats/stats_tree.h"

namespace systole::stats {

/// A run's clock period and each workload layer's span (their sum is the run's cycles).
struct Timebase {
  double period_ps = 1;                    ///< the kernel's clock period
  std::vector<std::int64_t> layer_cycles;  ///< each layer's span, in cycles
  std::int64_t total_cycles = 0;           ///< the run's cycles (sum of the spans)

  /// Picoseconds to whole cycles (nearest).
  std::int64_t cycles(double ps) const {
    return static_cast<std::int64_t>(std::llround(ps / period_ps));
  }
  /// The cycles of a scope: a layer's span, or the run's.
  std::int64_t span(std::size_t scope) const {
    return scope == kRun ? total_cycles : layer_cycles.at(scope);
  }
  /// The picoseconds of a scope (its cycles x the period).
  double span_ps(std::size_t scope) const { return static_cast<double>(span(scope)) * period_ps; }
};

}  // namespace systole::stats
