#pragma once
// The /meta every results file starts from: version, git revision, command line, start time.

#include <string>

#include "sim/stats/results_file.h"

namespace systole::app {

/// RunMeta with version, git revision, code version, `command_line` and the current UTC time
/// filled in.
stats::RunMeta run_meta(const std::string& command_line);

/// This build's code version, "0.1.0+<git revision>": the version points are computed by.
std::string code_version();

}  // namespace systole::app
