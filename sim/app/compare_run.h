#pragma once
// `simrun compare A.h5 B.h5`: the difference between two results files, point by point (points
// matched by their swept values) and layer by layer (matched by name), with the configuration
// keys that differ: what an architect runs after changing one parameter.

#include <string>
#include <vector>

namespace systole::app {

/// Runs the subcommand on its arguments (without "compare"); returns the exit code (0, or 2
/// for bad input). Prints to stdout.
int run_compare(const std::vector<std::string>& args);

}  // namespace systole::app
