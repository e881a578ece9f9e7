#pragma once
// `simrun merge OUT.h5 IN.h5... [--force] [-q]`: joins results files (the shards of a sweep).

#include <string>
#include <vector>

namespace systole::app {

/// `args` are the words after `merge`. Returns the exit code: 0, 1 when points are missing or
/// failed, 2 on bad input (ConfigError thrown).
int run_merge(const std::vector<std::string>& args, const std::string& command_line);

}  // namespace systole::app
