#pragma once
// Sweep expansion: `sweep:` maps config paths to lists of values (a grid; the cartesian
// product of all axes) and may hold `zip:` groups (paths whose lists advance together) and a
// `sample:` (points drawn from ranges, sim/sweep/sample.h), which is one more axis.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/experiment.h"

namespace systole::sweep {

/// One design point: its grid index, its stable key, the values the sweep assigned, and the
/// resolved config tree.
struct Point {
  int id = 0;  ///< index in the experiment's grid (or sample), from 0
  /// The point's stable id (point_key of its assignments): /points/<key> in results files. The
  /// same swept values give the same key in every run and shard, whatever the index.
  std::string key;
  /// Fingerprint of everything the point simulates (its resolved system with defaults and its
  /// loaded workload), filled in by the caller that prepares the point; --resume compares it.
  std::string config_hash;
  std::vector<std::pair<std::string, config::Node>> assignments;
  config::Node root;
  /// "system.chip.mxu.rows=256, system.chip.hbm.bandwidth=2.4TB/s" (or "base" when none).
  std::string label() const;
};

/// A swept value on one line: scalars as written, lists "[a, b]", mappings "{k: v, ...}".
std::string value_text(const config::Node& v);

/// A design point's stable id: 12 hex digits of a 64-bit FNV-1a hash of its assignments as
/// canonical text (one "path=value" line each, sorted by path, values as value_text writes
/// them), so the order of the sweep's keys does not matter.
std::string point_key(const std::vector<std::pair<std::string, config::Node>>& assignments);

/// Swept paths in the order the sweep lists them (zip members in place of their group, sampled
/// paths in place of `sample:`).
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

  struct Group;  ///< one system's grid (opaque outside expand.cpp)

 private:
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

/// How many design points expand() would give, without building them (saturates at SIZE_MAX).
size_t count_points(const config::Experiment& ex, const Applies& applies = {});

/// The sweep axes that do not apply to a system, and sampled points dropped as repeats, one
/// line each.
std::vector<std::string> sweep_notes(const config::Experiment& ex, const Applies& applies = {});

}  // namespace systole::sweep
