#pragma once
// Sweep expansion: `sweep:` maps config paths to lists of values (a grid; the cartesian
// product of all axes) and may hold `zip:` groups (paths whose lists advance together).

#include <string>
#include <utility>
#include <vector>

#include "sim/config/experiment.h"

namespace systole::sweep {

/// One design point: its id, the values the sweep assigned, and the resolved config tree.
struct Point {
  int id = 0;
  std::vector<std::pair<std::string, config::Node>> assignments;
  config::Node root;
  /// "system.chip.mxu.rows=256, system.chip.hbm.bandwidth=2.4TB/s" (or "base" when none).
  std::string label() const;
};

/// Swept paths in the order the sweep lists them (zip members in place of their group).
std::vector<std::string> swept_paths(const config::Node& sweep);

/// Expands the experiment into points (one point when there is no sweep). Throws ConfigError on
/// malformed sweeps (non-list values, empty lists, zip lists of different lengths).
std::vector<Point> expand(const config::Experiment& ex);

}  // namespace systole::sweep
