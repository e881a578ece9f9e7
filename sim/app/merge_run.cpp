#include "sim/app/merge_run.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "sim/core/error.h"
#include "sim/core/text.h"
#include "sim/stats/results_merge.h"

namespace systole::app {

namespace {

constexpr const char* kMergeUsage =
    "usage: simrun merge OUT.h5 IN.h5... [--force] [-q]\n"
    "  joins results files of one experiment (the shards of a sweep) into OUT.h5;\n"
    "  --force joins files of different experiments or code versions\n";

}  // namespace

int run_merge(const std::vector<std::string>& args, const std::string& command_line) {
  std::vector<std::string> files;
  bool force = false, quiet = false;
  for (const auto& a : args) {
    if (a == "--force") {
      force = true;
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (a == "-h" || a == "--help") {
      std::cout << kMergeUsage;
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      throw ConfigError({"<command line>"}, "merge",
                        fmt::format("unknown option '{}'{}\n{}", a,
                                    did_you_mean(a, {"--force", "--quiet"}), kMergeUsage));
    } else {
      files.push_back(a);
    }
  }
  if (files.size() < 2)
    throw ConfigError({"<command line>"}, "merge",
                      std::string("give the output file and at least one input\n") + kMergeUsage);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out = files.front();
  files.erase(files.begin());
  const auto report = stats::merge_results(out, files, {force, command_line});
  for (const auto& w : report.warnings) std::cerr << "simrun merge: warning: " << w << "\n";
  if (!quiet)
    std::cout << fmt::format(
        "wrote {}: {} point{} ({} failed) from {} file{}{} in {:.2f} s\n", out,
        with_commas(report.points), report.points == 1 ? "" : "s", report.failed, report.files,
        report.files == 1 ? "" : "s",
        report.duplicates ? fmt::format(", {} duplicate{} kept once", report.duplicates,
                                        report.duplicates == 1 ? "" : "s")
                          : "",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return report.missing || report.failed ? 1 : 0;
}

}  // namespace systole::app
