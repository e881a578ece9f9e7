#include "sim/app/simrun.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "models/register_all.h"
#include "sim/app/compare_run.h"
#include "sim/app/interrupt_note.h"
#include "sim/app/merge_run.h"
#include "sim/app/point.h"
#include "sim/app/resume.h"
#include "sim/app/run_guard.h"
#include "sim/app/run_meta.h"
#include "sim/app/scalesim_run.h"
#include "sim/app/shard_run.h"
#include "sim/config/experiment.h"
#include "sim/config/search_path.h"
#include "sim/core/hash.h"
#include "sim/core/text.h"
#include "sim/stats/compare.h"
#include "sim/stats/results_file.h"
#include "sim/stats/summary.h"
#include "sim/sweep/expand.h"
#include "sim/sweep/runner.h"
#include "systole/version.h"

namespace po = boost::program_options;

namespace systole::app {

namespace {

struct Options {
  std::string experiment;
  std::string output;
  std::vector<std::string> overrides;
  int jobs = 0;
  bool force_jobs = false, output_given = false;
  double point_timeout = 0;  // seconds; 0: no limit
  bool resume = false, validate = false, plan = false, list = false, quiet = false, version = false;
  std::string describe;
  std::string shard;  // --shard I/N
  bool mpi = false, resume_any_version = false;
  bool point_summary = true;  // the per-point table (under --mpi rank 0 prints it after merging)
  long max_points = 100000;
  ScalesimRunOptions scalesim;  // --scalesim-cfg mode
};

constexpr const char* kUsage =
    "usage: simrun EXPERIMENT.yaml [-o results.h5] [-p key.path=value ...] [--jobs N]\n"
    "              [--resume] [--validate] [--plan] [--quiet] [--point-timeout S]\n"
    "              [--shard I/N | --mpi] [--max-points N]\n"
    "       simrun --scalesim-cfg X.cfg --topology Y.csv [-o out.h5] [--dataflow os|ws|is] "
    "[--force]\n"
    "       simrun compare A.h5 B.h5\n"
    "       simrun merge OUT.h5 IN.h5... [--force]\n"
    "       simrun --list | --describe KIND | --version | --help\n";

po::options_description visible_options() {
  po::options_description d("options");
  d.add_options()("help,h", "print this help")("version", "print the version")(
      "output,o", po::value<std::string>(), "results file (default: output.file, results.h5)")(
      "param,p", po::value<std::vector<std::string>>()->composing(),
      "override a config value: -p system.chip.mxu.rows=256 (repeatable; YAML values)")(
      "jobs,j", po::value<int>(), "worker processes (default: all cores; at most the cores)")(
      "force-jobs", "run --jobs N workers even when N is more than the cores")(
      "point-timeout", po::value<double>(),
      "stop a design point after SECONDS and record it as failed (default: no limit)")(
      "resume", "keep the points already in the results file, run only the rest")(
      "validate", "check the experiment and every design point, run nothing")(
      "plan",
      "print each design point's compiled plan (per layer: mapping, tiles, op counts, bytes per "
      "memory level, bounds) without simulating")("list", "list the registered component kinds")(
      "describe", po::value<std::string>(),
      "print the parameters of a kind (--describe paths: where files are looked up)")(
      "quiet,q", "print errors only");
  d.add_options()("shard", po::value<std::string>(),
                  "run shard I of N of the sweep (I from 0: --shard 0/4 ... 3/4) into "
                  "results.shard-I-of-N.h5; a Slurm array task finds its shard by itself")(
      "mpi", "under mpirun -n N: rank r runs shard r/N, rank 0 merges the shard files")(
      "resume-any-version", "with --resume: also keep points computed by another code version")(
      "max-points", po::value<long>(),
      "refuse a sweep of more design points (default 100000, at most 1000000)");
  d.add_options()("scalesim-cfg", po::value<std::string>(),
                  "SCALE-Sim mode: run a SCALE-Sim v2 .cfg with --topology, SCALE-Sim's numbers")(
      "topology", po::value<std::string>(), "SCALE-Sim topology CSV (conv or Layer,M,N,K)")(
      "dataflow", po::value<std::string>(), "SCALE-Sim mode: override the cfg's Dataflow")(
      "force", "SCALE-Sim mode: replace the reports of an earlier run of the same run_name");
  return d;
}

Options parse_cli(int argc, char** argv, bool& help) {
  po::options_description hidden;
  hidden.add_options()("experiment", po::value<std::string>());
  po::options_description all;
  all.add(visible_options()).add(hidden);
  po::positional_options_description pos;
  pos.add("experiment", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError({"<command line>"}, "", std::string(e.what()) + "\n" + kUsage);
  }
  Options o;
  help = vm.count("help") > 0;
  if (vm.count("experiment")) o.experiment = vm["experiment"].as<std::string>();
  if (vm.count("output")) o.output = vm["output"].as<std::string>();
  o.output_given = vm.count("output") > 0;
  if (o.output_given && o.output.empty())
    throw ConfigError({"<command line>"}, "-o",
                      "empty file name: give the results file, e.g. -o results.h5");
  o.force_jobs = vm.count("force-jobs") > 0;
  if (vm.count("point-timeout")) {
    o.point_timeout = vm["point-timeout"].as<double>();
    if (!(o.point_timeout > 0) || o.point_timeout > 1e7)
      throw ConfigError({"<command line>"}, "--point-timeout",
                        "expected a number of seconds above 0");
  }
  if (vm.count("param")) o.overrides = vm["param"].as<std::vector<std::string>>();
  if (vm.count("jobs")) {
    o.jobs = vm["jobs"].as<int>();
    if (o.jobs < 1) throw ConfigError({"<command line>"}, "--jobs", "expected a positive number");
  }
  if (vm.count("describe")) o.describe = vm["describe"].as<std::string>();
  if (vm.count("shard")) o.shard = vm["shard"].as<std::string>();
  o.mpi = vm.count("mpi") > 0;
  o.resume_any_version = vm.count("resume-any-version") > 0;
  if (vm.count("max-points")) {
    o.max_points = vm["max-points"].as<long>();
    if (o.max_points < 1 || o.max_points > 1000000)
      throw ConfigError({"<command line>"}, "--max-points",
                        "expected a number of design points in [1, 1000000]");
  }
  o.resume = vm.count("resume") > 0 || o.resume_any_version;
  o.validate = vm.count("validate") > 0;
  o.plan = vm.count("plan") > 0;
  o.list = vm.count("list") > 0;
  o.quiet = vm.count("quiet") > 0;
  o.version = vm.count("version") > 0;
  if (vm.count("scalesim-cfg")) o.scalesim.cfg = vm["scalesim-cfg"].as<std::string>();
  if (vm.count("topology")) o.scalesim.topology = vm["topology"].as<std::string>();
  if (vm.count("dataflow")) o.scalesim.dataflow = vm["dataflow"].as<std::string>();
  o.scalesim.output = o.output;
  o.scalesim.quiet = o.quiet;
  o.scalesim.force = vm.count("force") > 0;
  for (const char* opt : {"topology", "dataflow", "force"})
    if (o.scalesim.cfg.empty() && vm.count(opt))
      throw ConfigError({"<command line>"}, std::string("--") + opt,
                        "only valid with --scalesim-cfg");
  if (!o.scalesim.cfg.empty())
    for (const char* opt : {"param", "jobs", "force-jobs", "point-timeout", "resume", "validate",
                            "plan", "shard", "mpi", "resume-any-version", "max-points"})
      if (vm.count(opt))
        throw ConfigError(
            {"<command line>"}, std::string(std::strcmp(opt, "param") ? "--" : "-p ") + opt,
            std::strcmp(opt, "param")
                ? "not honoured in SCALE-Sim mode, which runs one SCALE-Sim config (only -o, "
                  "--topology, --dataflow, --force and -q apply)"
                : "not honoured in SCALE-Sim mode: change the .cfg (ArrayHeight, ArrayWidth, "
                  "...) or run a Systole experiment instead");
  if (!o.scalesim.cfg.empty() && !o.experiment.empty())
    throw ConfigError({"<command line>"}, "--scalesim-cfg",
                      "runs a SCALE-Sim config instead of an experiment; give one or the other");
  return o;
}

/// One line per kind when piped (for grep); on a terminal (or with COLUMNS set) the summaries
/// wrap so the table fits it, short of its last column.
void print_list(const Registry& reg) {
  size_t kind_w = 4, category_w = 8;
  for (const auto& e : reg.entries()) {
    kind_w = std::max(kind_w, e.kind.size());
    category_w = std::max(category_w, e.category.size());
  }
  const size_t width = stats::terminal_width(), used = kind_w + category_w + 2 * 2 + 1;
  const size_t room = width > used + 20 ? width - used : 0;
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : reg.entries()) {
    const auto lines = stats::wrap_words(e.summary, room);
    rows.push_back({e.kind, e.category, lines.front()});
    for (size_t i = 1; i < lines.size(); ++i) rows.push_back({"", "", lines[i]});
  }
  std::cout << stats::format_table({"kind", "category", "summary"}, rows);
}

void print_describe(const Registry& reg, const std::string& kind) {
  const auto& e = reg.get(kind, {"<command line>"}, "--describe");
  std::cout << fmt::format("{} ({}): {}\n\n", e.kind, e.category, e.summary);
  if (e.schema) e.schema->describe(std::cout);
  if (const auto* listing = reg.stats(e.kind)) std::cout << "\n" << (*listing)();
}

/// A swept `system.` path applies to a system when its kind's schema (defaults filled in) or its
/// own tree has that key.
sweep::Applies schema_applies(const Registry& reg) {
  return [&reg](const config::Node& system, const std::string& path) {
    if (sweep::path_in_tree(system, path)) return true;
    const config::Node* kind = system.find("kind");
    const Registry::Entry* e = kind && kind->is_scalar() ? reg.find(kind->text()) : nullptr;
    if (!e || !e->schema) return false;
    config::Node full = e->schema->defaults_node();
    config::merge_into(full, system);
    return config::get_path(full, path.substr(std::string("system.").size())) != nullptr;
  };
}

struct Validated {
  size_t count = 0;  // design points
  /// All of them, unless only validating, without their resolved trees (`resolve` rebuilds
  /// one): the worker zygote is forked from this process, so its size is every fork's cost.
  std::vector<sweep::Point> points;
  sweep::Plan plan;
  std::map<int, std::string> unrunnable;  // point id -> reason (mapping failed)
  size_t layers = 0;
  std::vector<std::string> inputs;  // workload files the points read
  std::vector<std::string> listed;  // the first design points, one line each (--validate)
};

/// How many design points --validate lists by name.
constexpr size_t kListedPoints = 40;

/// Refuses a sweep of more than `limit` points before building any of them.
void check_point_count(const config::Experiment& ex, size_t total, long limit) {
  if (total <= static_cast<size_t>(limit)) return;
  throw ConfigError(
      ex.sweep.origin(), "sweep",
      fmt::format("the sweep has {} design points, above the limit of {} (--max-points N raises "
                  "it up to 1,000,000; sweep.sample draws a few points from a large space)",
                  total == SIZE_MAX ? std::string("too many") : with_commas(total),
                  with_commas(static_cast<unsigned long long>(limit))));
}

/// Prepares and checks every design point of `shard` (ConfigError on bad input), its config
/// fingerprint filled in; keeps them in `points` when `keep_points` (a run needs them;
/// --validate builds one at a time, so a 10^6-point sweep fits in little memory).
Validated validate_points(const Registry& reg, const config::Experiment& ex,
                          const sweep::Shard& shard, bool keep_points) {
  Validated v;
  v.plan = sweep::plan(ex, schema_applies(reg));
  const sweep::Plan& plan = v.plan;
  v.count = shard.points_of(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    if (!shard.owns(i)) continue;
    sweep::Point p = plan.point(i);
    if (v.listed.size() < kListedPoints)
      v.listed.push_back(fmt::format("  point {} (id {}): {}", p.id, p.key, p.label()));
    PreparedPoint pp;
    try {
      pp = prepare_point(reg, p);
    } catch (const ConfigError& e) {
      if (v.count == 1 || p.assignments.empty()) throw;
      throw ConfigError(e.origin(), e.path(),
                        e.message() + fmt::format(" [in sweep point {}: {}]", p.id, p.label()));
    }
    p.config_hash = config_hash(pp);
    v.layers = std::max(v.layers, pp.workload.layers.size());
    if (!pp.workload.file.empty() &&
        std::find(v.inputs.begin(), v.inputs.end(), pp.workload.file) == v.inputs.end())
      v.inputs.push_back(pp.workload.file);
    try {
      pp.system->check(pp.workload);
    } catch (const WorkloadError& e) {
      v.unrunnable[p.id] = e.what();
    }
    if (!keep_points) continue;
    p.root = config::Node();
    v.points.push_back(std::move(p));
  }
  if (!v.unrunnable.empty() && v.unrunnable.size() == v.count)
    throw WorkloadError(v.unrunnable.begin()->second +
                        (v.count > 1 ? " (and every other design point fails too)" : ""));
  return v;
}

/// The point `light` (one of Validated::points) with its resolved tree.
sweep::Point resolve(const Validated& v, const sweep::Point& light) {
  sweep::Point p = v.plan.point(static_cast<size_t>(light.id));
  if (p.key != light.key)
    throw SimError(
        fmt::format("design point {} rebuilt as {}, planned as {}", light.id, p.key, light.key));
  p.config_hash = light.config_hash;
  return p;
}

/// --plan: every point compiled and its plan printed; nothing simulated, nothing written.
int print_plans(const Registry& reg, const config::Experiment& ex, const std::string& file) {
  const auto points = sweep::expand(ex, schema_applies(reg));
  std::cout << fmt::format("{}: {} design point{}\n", file, points.size(),
                           points.size() == 1 ? "" : "s");
  std::vector<std::string> failed;
  for (const auto& p : points) {
    const PreparedPoint pp = prepare_point(reg, p);
    std::cout << fmt::format("\npoint {} ({}):\n", p.id,
                             p.assignments.empty() ? std::string("base") : p.label());
    try {
      std::cout << pp.system->plan(pp.workload);
    } catch (const WorkloadError& e) {
      failed.push_back(e.what());
      std::cout << "  does not map: " << e.what() << "\n";
    }
  }
  std::cout << std::flush;
  if (!failed.empty() && failed.size() == points.size()) throw WorkloadError(failed.front());
  return 0;
}

/// The resolved experiment as stored in /meta/experiment (bases merged, -p applied, sweep in).
config::Node experiment_tree(const config::Experiment& ex) {
  config::Node full = ex.root;
  if (!ex.sweep.is_null()) full.set("sweep", ex.sweep);
  return full;
}

/// The experiment's identity in results files: its resolved tree without `output:` (where and
/// what is written does not change what is simulated). simrun merge joins only equal ones.
std::string experiment_id(const config::Experiment& ex) {
  config::Node full = experiment_tree(ex);
  full.erase("output");
  return short_hash(full.to_yaml());
}

/// Where a run writes (`out`), the whole sweep's results file (`whole`: `out` unless this is a
/// shard), and the files --resume reads, oldest first.
struct Outputs {
  std::string out, whole;
  std::vector<std::string> resume_from;
};

Outputs outputs(const Options& o, const config::Experiment& ex, const sweep::Shard& shard) {
  Outputs f;
  f.whole = !o.output.empty() ? o.output : ex.output.file;
  f.out = (o.mpi || o.output.empty()) ? sweep::shard_file(f.whole, shard) : o.output;
  if (f.whole != f.out) f.resume_from = {f.whole, f.whole + ".partial"};
  f.resume_from.push_back(f.out);
  f.resume_from.push_back(f.out + ".partial");
  return f;
}

int print_validated(const Options& o, const Validated& v, const sweep::Shard& shard, size_t total) {
  std::cout << fmt::format(
      "{}: OK — {} design point{}{}, {} layer{}{}\n", o.experiment, v.count,
      v.count == 1 ? "" : "s",
      shard.split() ? fmt::format(" (shard {} of {} in all)", shard.text(), total) : "", v.layers,
      v.layers == 1 ? "" : "s",
      v.unrunnable.empty() ? ""
                           : fmt::format(", {} point(s) will fail to map", v.unrunnable.size()));
  for (const auto& line : v.listed) std::cout << line << "\n";
  if (v.count > v.listed.size())
    std::cout << fmt::format("  ... and {} more\n", with_commas(v.count - v.listed.size()));
  for (const auto& [id, why] : v.unrunnable)
    std::cout << fmt::format("  point {} will fail to map: {}\n", id, why);
  return 0;
}

/// Runs the experiment's design points (those of `shard`) and writes their results file, whose
/// whole-sweep name goes to `results`.
int run_experiment(const Options& o, const std::string& command_line, const sweep::Shard& shard,
                   std::string& results) {
  Registry reg;
  models::register_all(reg);
  config::Experiment ex = config::load_experiment(o.experiment, o.overrides);
  const size_t total = sweep::count_points(ex, schema_applies(reg));
  check_point_count(ex, total, o.max_points);
  if (o.plan) return print_plans(reg, ex, o.experiment);
  Validated v = validate_points(reg, ex, shard, !o.validate);
  auto swept = sweep::swept_paths(ex.sweep);
  if (!ex.systems.empty()) swept.insert(swept.begin(), "system");
  const auto notes = sweep::sweep_notes(ex, schema_applies(reg));
  if (!o.quiet)
    for (const auto& n : notes) std::cout << "note: " << n << "\n";
  if (o.validate) return print_validated(o, v, shard, total);

  // The output is checked and locked before anything runs (held until simrun returns).
  const Outputs files = outputs(o, ex, shard);
  const std::string& out = files.out;
  results = files.whole;
  const OutputArg arg = output_arg(o.output_given, ex);
  check_output_path(out, input_files(ex, v.inputs), arg);
  const OutputLock lock(out, arg);
  std::string jobs_note;
  const int jobs = choose_jobs(o.jobs, o.force_jobs, jobs_note);
  if (!jobs_note.empty() && !o.quiet) std::cout << "note: " << jobs_note << "\n";
  const bool tty = ::isatty(STDOUT_FILENO) && !o.quiet;
  const std::string version = code_version();

  // --resume: keep finished points of a previous (complete or interrupted) run whose config
  // and code version match; carried in memory, as the writer replaces the old partial file.
  ResumePlan resumed;
  if (o.resume) {
    resumed = plan_resume(v.points, files.resume_from, o.resume_any_version, version);
    if (!o.quiet) std::cout << resumed.summary(v.points.size()) << "\n";
  }

  stats::RunMeta meta = run_meta(command_line);
  meta.experiment_file = o.experiment;
  meta.experiment_name = ex.name;
  meta.experiment_yaml = experiment_tree(ex).to_yaml();
  meta.experiment_id = experiment_id(ex);
  meta.shard_index = shard.index;
  meta.shard_count = shard.count;
  meta.points_total = total;
  meta.swept_paths = swept;
  for (const auto& r : config::resolutions()) meta.resolved_files.push_back(r.text());
  stats::ResultsWriter writer(out, meta);

  std::vector<stats::PointResult> results_in;
  std::vector<const sweep::Point*> todo;
  for (const auto& p : v.points) {
    if (resumed.kept.count(p.key)) {
      writer.write_point(resumed.kept[p.key]);
      stats::keep_for_summary(resumed.kept[p.key]);
      results_in.push_back(std::move(resumed.kept[p.key]));
    } else if (v.unrunnable.count(p.id)) {
      stats::PointResult r =
          sweep::run_point_here(resolve(v, p), [&](const sweep::Point&) -> stats::PointResult {
            throw WorkloadError(v.unrunnable[p.id]);
          });
      r.code_version = version;
      writer.write_point(r);
      stats::keep_for_summary(r);
      results_in.push_back(std::move(r));
    } else {
      todo.push_back(&p);
    }
  }
  if (!o.quiet)
    std::cout << fmt::format("simrun {}: {} — {} design point{}{} ({} to run, {} job{})\n",
                             kVersion, o.experiment, v.points.size(),
                             v.points.size() == 1 ? "" : "s",
                             shard.split() ? fmt::format(" of shard {}", shard.text()) : "",
                             todo.size(), jobs, jobs == 1 ? "" : "s")
              << std::flush;

  const auto t0 = std::chrono::steady_clock::now();
  size_t done = results_in.size(), failed = 0;
  for (const auto& r : results_in) failed += !r.ok();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const size_t width = tty ? stats::terminal_width() : 0;
  size_t finished_here = 0;
  double last_done = -1;
  std::vector<std::string> running;
  auto show = [&] {
    if (!tty) return;
    std::cout << "\r\033[K"
              << stats::progress_line(
                     {done, v.points.size(), failed, finished_here, elapsed(), running, last_done},
                     width)
              << std::flush;
  };
  show();
  InterruptNote interrupt_note(out);
  const bool trace = ex.output.trace;
  sweep::RunnerOptions ropt{
      jobs, o.point_timeout, {}, [&](const sweep::Point& p) { return resolve(v, p); }};
  if (tty)
    ropt.on_tick = [&](const std::vector<const sweep::Point*>& now) {
      running.clear();
      for (const auto* p : now) running.push_back(fmt::format("point {} ({})", p->id, p->label()));
      show();
    };
  sweep::run_points(
      todo, [&](const sweep::Point& p) { return simulate_point(reg, p, trace); }, ropt,
      [&](stats::PointResult r) {
        ++done;
        ++finished_here;
        last_done = elapsed();
        const std::string mine = fmt::format("point {} (", r.id);
        running.erase(std::remove_if(running.begin(), running.end(),
                                     [&](const std::string& l) { return l.rfind(mine, 0) == 0; }),
                      running.end());
        failed += !r.ok();
        if (!r.ok() && o.quiet)  // -q hides progress and tables, never a failure
          std::cerr << fmt::format("simrun: point {} ({}) failed: {}\n", r.id, r.label,
                                   one_line(r.error));
        r.code_version = version;
        writer.write_point(r);
        stats::keep_for_summary(r);
        results_in.push_back(std::move(r));
        show();
      });
  if (tty) std::cout << "\r\033[K" << std::flush;
  std::sort(results_in.begin(), results_in.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  stats::Comparison comparison;
  if (!ex.systems.empty()) {
    std::vector<std::string> names;
    for (const auto& s : ex.systems) names.push_back(s.name);
    comparison = stats::compare_systems(results_in, names);
  }
  writer.commit(comparison.empty()
                    ? std::vector<stats::Table>{}
                    : std::vector<stats::Table>{comparison.networks, comparison.layers});

  if (ex.output.summary && !o.quiet && o.point_summary) {
    std::cout << "\n" << stats::points_summary(results_in, swept, width);
    if (results_in.size() <= 8) {
      for (const auto& r : results_in) {
        if (!r.ok()) continue;
        std::cout << fmt::format("\npoint {} ({}, id {}):\n", r.id, r.label, r.key)
                  << stats::layers_summary(r, width);
      }
    }
  }
  if (!comparison.empty() && !o.quiet) std::cout << stats::comparison_summary(comparison);
  if (!o.quiet)
    std::cout << fmt::format("\nwrote {} ({} point{}, {} failed) in {:.2f} s\n", out,
                             results_in.size(), results_in.size() == 1 ? "" : "s", failed,
                             elapsed());
  return failed ? 1 : 0;
}

/// The experiment run as this process's shard: all of it, --shard I/N, the Slurm array task's
/// shard, or under --mpi this rank's (rank 0 merging).
int run_sharded(Options o, const std::string& command_line) {
  std::string results;
  if (!o.mpi)
    return run_experiment(o, command_line, resolve_shard(o.shard, false, o.quiet), results);
  if (!o.shard.empty()) resolve_shard(o.shard, true, o.quiet);  // the error for both
  return run_mpi(
      [&](const sweep::Shard& shard, bool quiet, std::string& whole) {
        Options mine = o;
        mine.quiet = quiet;
        mine.point_summary = false;
        return run_experiment(mine, command_line, shard, whole);
      },
      o.quiet, o.validate || o.plan, command_line);
}

}  // namespace

int simrun_main(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    if (argc >= 2 && std::string(argv[1]) == "compare")
      return run_compare(std::vector<std::string>(argv + 2, argv + argc));
    if (argc >= 2 && std::string(argv[1]) == "merge")
      return run_merge(std::vector<std::string>(argv + 2, argv + argc), command_line);
    bool help = false;
    Options o = parse_cli(argc, argv, help);
    if (help) {
      std::cout << kUsage << "\n" << visible_options() << "\n";
      return 0;
    }
    if (o.version) {
      std::cout << fmt::format("simrun (Systole) {} ({})\n", kVersion, kGitRevision);
      return 0;
    }
    if (o.describe == "paths") {
      std::cout << config::describe_search_path(o.experiment);
      return 0;
    }
    if (o.list || !o.describe.empty()) {
      Registry reg;
      models::register_all(reg);
      if (o.list) print_list(reg);
      if (!o.describe.empty()) print_describe(reg, o.describe);
      return 0;
    }
    if (!o.scalesim.cfg.empty()) return run_scalesim(o.scalesim, command_line);
    if (o.experiment.empty()) {
      std::cerr << "simrun: no experiment file given\n" << kUsage;
      return 2;
    }
    return run_sharded(o, command_line);
  } catch (const Error& e) {
    std::cerr << "simrun: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "simrun: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace systole::app
