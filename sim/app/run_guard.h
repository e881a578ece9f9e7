#pragma once
// What simrun checks before it simulates anything: the output path (sim/core/output_path.h)
// against every input file of the experiment, and how many worker processes to run.

#include <string>
#include <vector>

#include "sim/config/experiment.h"
#include "sim/core/output_path.h"

namespace systole::app {

/// Every file the experiment was read from: the experiment, its base files and presets (the
/// origins in its tree), plus `more` (the workload files the points read).
std::vector<std::string> input_files(const config::Experiment& ex,
                                     const std::vector<std::string>& more = {});

/// Where the output path came from: `-o` when given, else the experiment's output.file.
OutputArg output_arg(bool from_command_line, const config::Experiment& ex);

/// CPU cores this process may run on (its affinity mask), at least 1.
int available_cores();

/// Worker processes: `requested` (0: every core), capped at the core count unless `force`;
/// `note` is set when the request was capped.
int choose_jobs(int requested, bool force, std::string& note);

}  // namespace systole::app
