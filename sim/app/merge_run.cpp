#include "sim/app/merge_run.h"

#include <fmt/format.h>

#include <signal.h>

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
// only finishes the output), then "N files points failed duplicates missing", "W <warning>" and
// "S <swept path>" lines on success, or the error text.

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
  for (const auto& p : r.swept_paths) out += "S " + one_line(p) + "\n";
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
    } else if (line.rfind("S ", 0) == 0) {
      r.swept_paths.push_back(line.substr(2));
    } else {
      rest += (rest.empty() ? "" : "\n") + line;
    }
  }
  return r;
}

/// The end of a failed child (the merge's or the checker's) as the error it is: a signal names
/// the input it was reading (libhdf5 crashed or spun on it), or the output it was finishing.
[[noreturn]] void throw_child_failure(const ChildOutcome& o, const ChildStep& step,
                                      const std::string& message, const std::string& out) {
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
  if (o.signal)
    throw ConfigError({where}, "",
                      fmt::format("the results file is corrupted: reading it crashed the HDF5 "
                                  "library ({})",
                                  strsignal(o.signal)));
  if (o.exit_code == kChildConfigError) throw ConfigError({}, "", message);
  throw SimError(message);
}

/// Every input's points checked as a reader reads them (stats::check_points), in a child that
/// runs beside the merge's (on the second core): H5Ocopy copies what it cannot interpret (a
/// table column outside its record, a trace event naming no unit), so without this check a
/// corrupt input could become a merged file that exits 0 but does not read back. Pipe: "L" and
/// "R" lines as the merge child writes them, then the error text if any.
Child start_checker(const std::vector<std::string>& inputs) {
  return start_catching_child([&inputs](int fd) {
    silence_stderr();
    for (const auto& p : inputs) {
      const std::uint64_t s = stats::read_cpu_limit_s(p);
      write_all(fd, fmt::format("L {}\nR {}\n", s, one_line(p)));
      allow_cpu_seconds_from_now(s);
      stats::check_points(p);
    }
    return std::string();
  });
}

/// Stops the checker early (the merge failed on its own) and reaps it.
void stop(Child& checker) {
  ::kill(checker.pid, SIGKILL);
  (void)finish_child(checker);
}

}  // namespace

stats::MergeReport merge_isolated(const std::string& out, const std::vector<std::string>& inputs,
                                  const stats::MergeOptions& opt) {
  Child checker = start_checker(inputs);
  stats::MergeOptions unpublished = opt;
  unpublished.publish = false;  // renamed below, once the checker agrees
  ChildOutcome o;
  try {
    o = run_catching_in_child([&](int fd) {
      silence_stderr();
      const CpuAllowance cpu(inputs);
      auto step = [fd, &cpu](const std::string& path) {
        const std::uint64_t s = cpu.for_step(path);
        write_all(fd, fmt::format("L {}\nR {}\n", s, one_line(path)));
        allow_cpu_seconds_from_now(s);
      };
      return report_text(stats::merge_results(out, inputs, unpublished, step));
    });
  } catch (...) {
    stop(checker);
    throw;
  }
  const std::string partial = out + ".partial";
  ChildStep step;
  std::string message;
  stats::MergeReport report = parse_report(o.data, step, message);
  if (o.signal || o.exit_code != 0) {
    stop(checker);
    std::remove(partial.c_str());  // the child's half-written output, if any
    throw_child_failure(o, step, message, out);
  }
  const ChildOutcome c = finish_child(checker);
  if (c.signal || c.exit_code != 0) {
    std::remove(partial.c_str());
    ChildStep checked;
    std::string why;
    (void)parse_report(c.data, checked, why);
    throw_child_failure(c, checked, why, out);
  }
  stats::publish_results(out);
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
