#pragma once
// Joining results files (`simrun merge OUT IN...`, and rank 0 after an MPI run): the shards of
// one sweep, or runs that each covered part of it. Points are matched by their stable id; the
// output is written beside OUT as OUT.partial and renamed when complete.

#include <functional>
#include <string>
#include <vector>

namespace systole::stats {

struct MergeOptions {
  bool force = false;        // join files of different experiments or code versions
  std::string command_line;  // recorded in /meta
  bool publish = true;       // false: OUT.partial is left finished for the caller to publish
};

/// Called before each input is opened, and with "" once every input is read and only the
/// output is left to finish (for the crash-isolated merge to name a culprit and bound the CPU
/// time of each step).
using OnInput = std::function<void(const std::string& path)>;

struct MergeReport {
  size_t files = 0;
  size_t points = 0;      // in the output
  size_t failed = 0;      // of those, failed points
  size_t duplicates = 0;  // points found in more than one input with the same config: kept once
  size_t missing = 0;     // points of the experiment found in no input
  std::vector<std::string> warnings;     // one line each: missing points, forced mismatches
  std::vector<std::string> swept_paths;  // the merged file's /sweep columns, for its summary
};

/// Merges `inputs` into `out`. ConfigError (exit 2) when an input is missing or not a results
/// file, when `out` is one of the inputs, when the inputs come from different experiments or
/// code versions (unless `force`), and when one point appears with two different configs.
MergeReport merge_results(const std::string& out, const std::vector<std::string>& inputs,
                          const MergeOptions& opt, const OnInput& on_input = {});

}  // namespace systole::stats
