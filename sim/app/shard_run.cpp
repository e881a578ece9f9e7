#include "sim/app/shard_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "sim/app/merge_run.h"
#include "sim/app/mpi_session.h"
#include "sim/core/error.h"
#include "sim/stats/results_file.h"
#include "sim/stats/results_merge.h"
#include "sim/stats/summary.h"

namespace systole::app {

sweep::Shard resolve_shard(const std::string& flag, bool mpi, bool quiet) {
  if (!flag.empty()) {
    if (mpi)
      throw ConfigError({"<command line>"}, "--shard",
                        "with --mpi every rank runs its own shard; give one or the other");
    return sweep::parse_shard(flag);
  }
  if (mpi) return {};
  const auto slurm = sweep::shard_from_slurm([](const char* name) { return std::getenv(name); });
  if (!slurm) return {};
  if (!quiet)
    std::cout << fmt::format("Slurm array task: running shard {} of the sweep\n", slurm->text());
  return *slurm;
}

namespace {

/// Runs this rank's shard; an error is printed here (once when every rank has the same) and
/// becomes the exit code, so that every rank reaches the collectives after it.
int run_rank(const MpiSession& mpi, const ShardRun& run, bool quiet, std::string& results) {
  int rc = 0;
  std::string error;
  try {
    rc = run({mpi.rank(), mpi.size()}, quiet || mpi.rank() != 0, results);
  } catch (const Error& e) {
    error = e.what();
    rc = e.exit_code();
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
    rc = 1;
  }
  const std::string rank0 = mpi.from_rank0(error);
  if (!error.empty() && (mpi.rank() == 0 || error != rank0))
    std::cerr << fmt::format("simrun{}: error: {}\n",
                             mpi.rank() ? fmt::format(" (rank {})", mpi.rank()) : "", error);
  return rc;
}

int merge_shards(int size, const std::string& results, bool quiet,
                 const std::string& command_line) {
  std::vector<std::string> shards;
  for (int i = 0; i < size; ++i) shards.push_back(sweep::shard_file(results, {i, size}));
  // In a child process, as `simrun merge` does: a shard file that crashes libhdf5 is one error
  // line (exit 2) and leaves no half-written output, instead of killing rank 0.
  const stats::MergeReport report = merge_isolated(results, shards, {false, command_line});
  for (const auto& w : report.warnings) std::cerr << "simrun: warning: " << w << "\n";
  if (report.missing == 0)
    for (const auto& s : shards) std::remove(s.c_str());
  if (!quiet) {
    // Read in a child too: rank 0 never opens a results file in its own process.
    std::cout << "\n"
              << stats::points_summary(stats::read_points_isolated(results), report.swept_paths);
    std::cout << fmt::format("\nwrote {} ({} point{}, {} failed) from {} MPI ranks\n", results,
                             report.points, report.points == 1 ? "" : "s", report.failed, size);
  }
  return report.missing ? 1 : 0;
}

}  // namespace

int run_mpi(const ShardRun& run, bool quiet, bool check_only, const std::string& command_line) {
  MpiSession mpi;
  std::string results;
  if (check_only) return mpi.rank() == 0 ? run({0, 1}, quiet, results) : 0;
  if (mpi.size() == 1) return run({0, 1}, quiet, results);
  const int rc = run_rank(mpi, run, quiet, results);
  const int worst = mpi.max_over_ranks(rc);
  if (mpi.rank() != 0) return rc;
  if (worst >= 2) return worst;  // bad input: nothing to merge
  return std::max(worst, merge_shards(mpi.size(), results, quiet, command_line));
}

}  // namespace systole::app
