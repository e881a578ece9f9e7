#include "sim/app/merge_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "sim/core/error.h"
#include "sim/core/subprocess.h"
#include "sim/core/text.h"
#include "sim/stats/results_merge.h"

namespace systole::app {

namespace {

constexpr const char* kMergeUsage =
    "usage: simrun merge OUT.h5 IN.h5... [--force] [-q]\n"
    "  joins results files of one experiment (the shards of a sweep) into OUT.h5;\n"
    "  --force joins files of different experiments or code versions\n";

// The child's pipe: "R <path>" before it opens an input, then "N files points failed
// duplicates missing" and "W <warning>" lines on success, or the error text.

std::string report_text(const stats::MergeReport& r) {
  std::string out =
      fmt::format("N {} {} {} {} {}\n", r.files, r.points, r.failed, r.duplicates, r.missing);
  for (const auto& w : r.warnings) out += "W " + one_line(w) + "\n";
  return out;
}

/// The report and the last input the child opened, from its pipe.
stats::MergeReport parse_report(const std::string& data, std::string& last_input,
                                std::string& rest) {
  stats::MergeReport r;
  std::istringstream in(data);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("R ", 0) == 0) {
      last_input = line.substr(2);
    } else if (line.rfind("N ", 0) == 0) {
      std::istringstream n(line.substr(2));
      n >> r.files >> r.points >> r.failed >> r.duplicates >> r.missing;
    } else if (line.rfind("W ", 0) == 0) {
      r.warnings.push_back(line.substr(2));
    } else {
      rest += (rest.empty() ? "" : "\n") + line;
    }
  }
  return r;
}

}  // namespace

stats::MergeReport merge_isolated(const std::string& out, const std::vector<std::string>& inputs,
                                  const stats::MergeOptions& opt) {
  const ChildOutcome o = run_catching_in_child([&](int fd) {
    auto named = [fd](const std::string& path) { write_all(fd, "R " + one_line(path) + "\n"); };
    return report_text(stats::merge_results(out, inputs, opt, named));
  });
  std::string last, message;
  stats::MergeReport report = parse_report(o.data, last, message);
  if (o.signal) {
    std::remove((out + ".partial").c_str());  // the child's half-written output
    throw ConfigError({last.empty() ? std::string("<merge>") : last}, "",
                      fmt::format("the results file is corrupted: reading it crashed the HDF5 "
                                  "library ({})",
                                  strsignal(o.signal)));
  }
  if (o.exit_code == kChildConfigError) throw ConfigError({}, "", message);
  if (o.exit_code != 0) throw SimError(message);
  return report;
}

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
  const auto report = merge_isolated(out, files, {force, command_line});
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
