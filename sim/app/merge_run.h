#pragma once
// `simrun merge OUT.h5 IN.h5... [--force] [-q]`: joins results files (the shards of a sweep).

#include <string>
#include <vector>

#include "sim/stats/results_merge.h"

namespace systole::app {

/// stats::merge_results in a child process, like --resume's reader: an input so corrupted that
/// libhdf5 crashes or spins on it is one ConfigError naming that input ("the results file is
/// corrupted ...", exit 2), and no half-written output is left behind. Each input the child
/// opens may take it 20 s + 1 s per MiB of that file in CPU time, finishing the output 20 s +
/// 1 s per MiB of all inputs (merge_run.cpp, CpuAllowance). A second child checks every point of
/// every input as a reader reads it (stats::check_points) while the first merges; the merged
/// file is renamed into place only when both succeed, so a merge that returns wrote a file that
/// reads back, and one that throws leaves OUT.h5 as it was and no OUT.h5.partial.
stats::MergeReport merge_isolated(const std::string& out, const std::vector<std::string>& inputs,
                                  const stats::MergeOptions& opt);

/// `args` are the words after `merge`. Returns the exit code: 0, 1 when points are missing or
/// failed, 2 on bad input (ConfigError thrown).
int run_merge(const std::vector<std::string>& args, const std::string& command_line);

}  // namespace systole::app
