#pragma once
// simrun: the command-line front end. Parses options, loads and validates the experiment,
// runs its design points in worker processes, writes results.h5 and prints the summary.

namespace systole::app {

/// The whole program; returns the process exit code (0 ok, 1 some points failed or an
/// internal error, 2 bad input).
int simrun_main(int argc, char** argv);

}  // namespace systole::app
