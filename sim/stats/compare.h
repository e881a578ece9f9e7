#pragma once
// The comparison of several systems on the same workloads (an experiment with `systems:`): the
// points that differ only in `system` form a case; per case, per network and per layer, each
// system's time, utilisation, achieved FLOP/s, HBM bytes and bounding resource, and ratios to
// the reference system (the first listed) normalised per chip, per peak FLOP/s and per watt.
// Written to /compare in the results file and printed after the run.

#include <string>
#include <vector>

#include "sim/stats/result.h"
#include "sim/stats/table.h"

namespace systole::stats {

struct Comparison {
  Table networks{"networks", "one row per case and system: whole-workload figures and ratios"};
  Table layers{"layers", "one row per case, layer and system: per-layer figures and ratios"};
  bool empty() const { return networks.empty(); }
};

/// Compares `results` (points with a "system" assignment); `systems` in experiment order, the
/// first the reference. Failed points are left out; a case needs two systems.
Comparison compare_systems(const std::vector<PointResult>& results,
                           const std::vector<std::string>& systems);

/// The comparison as text tables for the terminal (one block per case).
std::string comparison_summary(const Comparison& c);

}  // namespace systole::stats
