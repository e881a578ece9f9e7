#pragma once
// Sweep expansion: `sweep:` maps config paths to lists of values (a grid; the cartesian
// product of all axes) and may hold `zip:` groups (paths whose lists advance together).

#include <functional>
#include <memory>
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

/// A swept value on one line: scalars as written, lists "[a, b]", mappings "{k: v, ...}".
std::string value_text(const config::Node& v);

/// Swept paths in the order the sweep lists them (zip members in place of their group).
std::vector<std::string> swept_paths(const config::Node& sweep);

/// Whether the swept path `path` ("system.…") applies to a system (its resolved `system:` tree).
using Applies = std::function<bool(const config::Node& system, const std::string& path)>;

/// Default Applies: the path names a key present in the system's tree.
bool path_in_tree(const config::Node& system, const std::string& path);

/// The design points of an experiment, built one at a time on demand: a 10^6-point sweep
/// costs its axes' values once, not a config tree per point (what --validate walks).
class Plan {
 public:
  size_t size() const;
  /// Point `i` (0 <= i < size()), with its resolved tree; points come in id order.
  Point point(size_t i) const;

 private:
  struct Group;
  friend Plan plan(const config::Experiment& ex, const Applies& applies);
  std::vector<std::shared_ptr<const Group>> groups_;
};

/// The plan of expand(): the same points, same ids, same order, built by Plan::point.
Plan plan(const config::Experiment& ex, const Applies& applies = {});

/// Expands the experiment into points (one point when there is no sweep). With `systems:`, the
/// points of each system in turn (first assignment "system" = its name), each system swept only
/// along the axes that apply to it (`applies`; an axis whose paths all miss runs once, at the
/// system's own value). Throws ConfigError on malformed sweeps (non-list values, empty lists,
/// zip lists of different lengths).
std::vector<Point> expand(const config::Experiment& ex, const Applies& applies = {});

/// The sweep axes that do not apply to a system, one line each (empty without `systems:`).
std::vector<std::string> sweep_notes(const config::Experiment& ex, const Applies& applies = {});

}  // namespace systole::sweep
