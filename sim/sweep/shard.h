#pragma once
// Shards: a sweep split into N disjoint parts that run on their own (separate processes, MPI
// ranks, the tasks of a Slurm array) and are joined by `simrun merge`. Point i belongs to shard
// i mod N, so every shard gets a similar mix of the grid's fast and slow corners.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace systole::sweep {

/// Shard `index` of `count` (0 <= index < count); count 1 is the whole sweep.
struct Shard {
  int index = 0;
  int count = 1;
  bool split() const { return count > 1; }
  /// Whether the design point with grid index `point` belongs to this shard.
  bool owns(size_t point) const {
    return point % static_cast<size_t>(count) == static_cast<size_t>(index);
  }
  /// How many of the points 0..total-1 it owns.
  size_t points_of(size_t total) const {
    const auto i = static_cast<size_t>(index), n = static_cast<size_t>(count);
    return total > i ? (total - i + n - 1) / n : 0;
  }
  /// "1/3"
  std::string text() const;
};

/// Parses "I/N" (--shard): shards count from 0. ConfigError naming --shard when malformed.
Shard parse_shard(const std::string& text);

/// Reads a process's environment variable (nullptr when unset); std::getenv in simrun.
using Env = std::function<const char*(const char*)>;

/// The shard of this task of a Slurm array: SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN
/// (divided by SLURM_ARRAY_TASK_STEP when set) of SLURM_ARRAY_TASK_COUNT. None outside an
/// array (or in an array of one task). ConfigError when the ids are not 0..N-1 after that
/// shift (e.g. --array=1,5,9): then name the shard with --shard.
std::optional<Shard> shard_from_slurm(const Env& env);

/// The results file of a shard: "results.h5" -> "results.shard-1-of-3.h5" (the whole sweep's
/// name when the shard is the whole sweep).
std::string shard_file(const std::string& output, const Shard& shard);

}  // namespace systole::sweep
