#include "sim/app/merge_run.h"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "sim/core/error.h"
#include "sim/core/subprocess.h"
#include "sim/core/text.h"
#include "sim/stats/results_file.h"
#include "sim/stats/results_merge.h"

namespace systole::app {

namespace {

constexpr const char* kMergeUsage =
    "usage: simrun merge OUT.h5 IN.h5... [--force] [-q]\n"
    "  joins results files of one experiment (the shards of a sweep) into OUT.h5;\n"
    "  --force joins files of different experiments or code versions\n";

// The child's pipe: "L <seconds>" and "R <path>" before it opens an input ("R " alone once it
// only finishes the output), then "N files points failed duplicates missing" and
// "W <warning>" lines on success, or the error text.

/// The child's CPU-time allowance for each step, counted from the step's start (libhdf5 can spin
/// forever on a corrupted file: tests/data/fuzz/results_heap_spin.h5): per input, what
/// --resume's isolated reader gets for that file (stats::read_cpu_limit_s: 20 s + 1 s per MiB),
/// each time the merge opens it; finishing the output (writing /sweep, flushing), the same rule
/// over the inputs' summed size. The merge does ~40 MiB per CPU-second (341 MB in 7.8-9.4 s,
/// 2026-11-26, tools/bench/merge_bench.sh), ~12 MiB per CPU-second at load 18 (345 MB in 30 s),
/// so only a stuck step reaches its allowance.
struct CpuAllowance {
  std::uint64_t finish_s = 20;

  explicit CpuAllowance(const std::vector<std::string>& inputs) {
    for (const auto& p : inputs) finish_s += stats::read_cpu_limit_s(p) - 20;
  }
  std::uint64_t for_step(const std::string& path) const {
    return path.empty() ? finish_s : stats::read_cpu_limit_s(path);
  }
};

std::string report_text(const stats::MergeReport& r) {
  std::string out =
      fmt::format("N {} {} {} {} {}\n", r.files, r.points, r.failed, r.duplicates, r.missing);
  for (const auto& w : r.warnings) out += "W " + one_line(w) + "\n";
  return out;
}

/// Where the child was: the last input it opened, whether it was finishing the output, and the
/// CPU seconds its step was allowed.
struct ChildStep {
  std::string input;
  bool finishing = false;
  std::uint64_t allowance_s = 0;
};

/// The report and the child's last step, from its pipe.
stats::MergeReport parse_report(const std::string& data, ChildStep& step, std::string& rest) {
  stats::MergeReport r;
  std::istringstream in(data);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("R ", 0) == 0) {
      step.finishing = line.size() == 2;
      if (!step.finishing) step.input = line.substr(2);
    } else if (line.rfind("L ", 0) == 0) {
      std::istringstream(line.substr(2)) >> step.allowance_s;
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
    const CpuAllowance cpu(inputs);
    auto step = [fd, &cpu](const std::string& path) {
      const std::uint64_t s = cpu.for_step(path);
      write_all(fd, fmt::format("L {}\nR {}\n", s, one_line(path)));
      allow_cpu_seconds_from_now(s);
    };
    return report_text(stats::merge_results(out, inputs, opt, step));
  });
  ChildStep step;
  std::string message;
  stats::MergeReport report = parse_report(o.data, step, message);
  if (o.signal) {
    std::remove((out + ".partial").c_str());  // the child's half-written output
    if (o.signal == SIGXCPU && step.finishing)
      throw SimError(
          fmt::format("finishing the merged file '{}' took more than {} CPU-seconds "
                      "and was stopped",
                      out, step.allowance_s));
    const std::string where = step.input.empty() ? std::string("<merge>") : step.input;
    if (o.signal == SIGXCPU)
      throw ConfigError({where}, "",
                        fmt::format("the results file is corrupted: reading it spun inside the "
                                    "HDF5 library for {} CPU-seconds and was stopped",
                                    step.allowance_s));
    throw ConfigError({where}, "",
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
