#pragma once
// Running one shard of a sweep: which shard this process is (--shard, a Slurm array task, an
// MPI rank), and under MPI the whole run: each rank its shard into its own file, then rank 0
// merges them into the results file.

#include <functional>
#include <string>

#include "sim/sweep/shard.h"

namespace systole::app {

/// --shard I/N when given; else, outside MPI, the Slurm array task's shard (a note on stdout
/// unless `quiet`); else the whole sweep.
sweep::Shard resolve_shard(const std::string& flag, bool mpi, bool quiet);

/// What a rank runs: its shard, into its own file (the results file's shard name), quietly on
/// ranks other than 0. Returns the exit code and sets `results` to the whole sweep's file.
using ShardRun = std::function<int(const sweep::Shard& shard, bool quiet, std::string& results)>;

/// simrun --mpi: every rank runs its shard; when none hit bad input, rank 0 merges the shard
/// files into the results file, removes them and prints the summary. Returns this rank's exit
/// code (rank 0: the worst of all). With `check_only` (--validate, --plan) rank 0 checks the
/// whole sweep and the other ranks do nothing.
int run_mpi(const ShardRun& run, bool quiet, bool check_only, const std::string& command_line);

}  // namespace systole::app
