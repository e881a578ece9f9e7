#include "sim/app/scalesim_run.h"

#include "sim/app/run_meta.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "models/scalesim/scalesim_timing.h"
#include "sim/core/hash.h"
#include "sim/core/output_path.h"
#include "sim/core/text.h"
#include "sim/stats/results_file.h"
#include "sim/stats/summary.h"
#include "sim/sweep/expand.h"
#include "systole/version.h"

namespace systole::app {
namespace {

namespace ss = models::scalesim;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

stats::Record layer_record(int id, const ss::ConvLayer& l, const ss::LayerResult& r, double wall) {
  stats::Record rec;
  rec.i("layer_id", "", "row of the topology (after SCALE-Sim's DP split)", id)
      .s("layer", "layer name", l.name)
      .i("ifmap_h", "", "IFMAP height as given (padding included)", l.ifmap_h)
      .i("ifmap_w", "", "IFMAP width as given (padding included)", l.ifmap_w)
      .i("filter_h", "", "filter height", l.filter_h)
      .i("filter_w", "", "filter width", l.filter_w)
      .i("channels", "", "input channels", l.channels)
      .i("num_filters", "", "filters (output channels)", l.num_filters)
      .i("stride_h", "", "row stride", l.stride_h)
      .i("stride_w", "", "column stride", l.stride_w)
      .i("ofmap_h", "", "output height, ceil((H - R + S) / S)", l.ofmap_h())
      .i("ofmap_w", "", "output width", l.ofmap_w())
      .i("m", "", "GEMM M: output pixels", l.gemm_m())
      .i("n", "", "GEMM N: filters", l.gemm_n())
      .i("k", "", "GEMM K: filter height x width x channels", l.gemm_k())
      .i("macs", "MAC", "multiply-accumulates, M x N x K", l.macs())
      .i("row_folds", "", "folds along the array rows", r.row_folds)
      .i("col_folds", "", "folds along the array columns", r.col_folds)
      .i("cycles_per_fold", "cycles", "os T+R+C-2, ws/is 2R+C+T-2", r.cycles_per_fold)
      .i("total_cycles", "cycles",
         "SCALE-Sim Total Cycles: index of the last cycle, stalls included, SRAM fill excluded",
         r.total_cycles)
      .i("stall_cycles", "cycles", "SCALE-Sim Stall Cycles (memory stalls)", r.stall_cycles)
      .i("compute_cycles", "cycles", "folds x cycles_per_fold - 1 (total without stalls)",
         r.compute_cycles)
      .f("overall_util", "%", "SCALE-Sim Overall Util: 100 x MACs / (Total Cycles x PEs)",
         r.overall_util_pct)
      .f("mapping_efficiency", "%", "SCALE-Sim Mapping Efficiency: used PEs per fold, averaged",
         r.mapping_efficiency_pct)
      .f("compute_util", "%", "SCALE-Sim Compute Util: per-fold utilization, averaged",
         r.compute_util_pct)
      .i("sram_ifmap_reads", "words", "IFMAP SRAM reads", r.sram_ifmap_reads)
      .i("sram_filter_reads", "words", "FILTER SRAM reads", r.sram_filter_reads)
      .i("sram_ofmap_writes", "words", "OFMAP SRAM writes (os: + R + C per fold)",
         r.sram_ofmap_writes)
      .f("avg_ifmap_sram_bw", "words/cycle", "IFMAP SRAM reads / Total Cycles", r.avg_ifmap_sram_bw)
      .f("avg_filter_sram_bw", "words/cycle", "FILTER SRAM reads / Total Cycles",
         r.avg_filter_sram_bw)
      .f("avg_ofmap_sram_bw", "words/cycle", "OFMAP SRAM writes / Total Cycles",
         r.avg_ofmap_sram_bw)
      .i("sram_ifmap_start", "cycles", "serviced cycle of the first IFMAP SRAM demand row",
         r.sram_ifmap_start)
      .i("sram_ifmap_stop", "cycles", "serviced cycle of the last IFMAP SRAM demand row",
         r.sram_ifmap_stop)
      .i("sram_filter_start", "cycles", "serviced cycle of the first FILTER SRAM demand row",
         r.sram_filter_start)
      .i("sram_filter_stop", "cycles", "serviced cycle of the last FILTER SRAM demand row",
         r.sram_filter_stop)
      .i("sram_ofmap_start", "cycles", "serviced cycle of the first OFMAP SRAM write row",
         r.sram_ofmap_start)
      .i("sram_ofmap_stop", "cycles", "serviced cycle of the last OFMAP SRAM write row",
         r.sram_ofmap_stop)
      .i("dram_ifmap_reads", "words", "IFMAP DRAM reads", r.dram_ifmap_reads)
      .i("dram_filter_reads", "words", "FILTER DRAM reads", r.dram_filter_reads)
      .i("dram_ofmap_writes", "words", "OFMAP DRAM writes", r.dram_ofmap_writes)
      .i("dram_ifmap_start", "cycles", "first cycle of the IFMAP DRAM trace", r.dram_ifmap_start)
      .i("dram_ifmap_stop", "cycles", "last cycle of the IFMAP DRAM trace", r.dram_ifmap_stop)
      .i("dram_filter_start", "cycles", "first cycle of the FILTER DRAM trace", r.dram_filter_start)
      .i("dram_filter_stop", "cycles", "last cycle of the FILTER DRAM trace", r.dram_filter_stop)
      .i("dram_ofmap_start", "cycles", "first cycle of the OFMAP DRAM trace", r.dram_ofmap_start)
      .i("dram_ofmap_stop", "cycles", "last cycle of the OFMAP DRAM trace", r.dram_ofmap_stop)
      .f("avg_ifmap_dram_bw", "words/cycle", "IFMAP DRAM reads over the IFMAP DRAM trace",
         r.avg_ifmap_dram_bw)
      .f("avg_filter_dram_bw", "words/cycle", "FILTER DRAM reads over the FILTER DRAM trace",
         r.avg_filter_dram_bw)
      .f("avg_ofmap_dram_bw", "words/cycle", "OFMAP DRAM writes over the OFMAP DRAM trace",
         r.avg_ofmap_dram_bw)
      .i("cycles_incl_prefetch", "cycles",
         "SCALE-Sim v3's Total Cycles (incl. prefetch): last OFMAP DRAM write - first read",
         r.cycles_incl_prefetch)
      .f("wall_seconds", "s", "time Systole took to simulate the layer", wall);
  return rec;
}

std::string config_yaml(const workloads::ScalesimConfig& cfg,
                        const workloads::ScalesimTopology& topo) {
  return cfg.to_yaml() + fmt::format("topology: \"{}\"\ntopology_format: {}\nlayers: {}\n",
                                     topo.path, topo.gemm ? "gemm" : "conv", topo.layers.size());
}

/// Writes `text` to `path` through a temporary file, so a failed run leaves no half report.
void write_file(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw SimError(fmt::format("cannot write '{}'", tmp.string()));
  }
  std::error_code ec;
  const std::string blocker = replace_blocker(path.string());
  if (!blocker.empty()) {
    std::filesystem::remove(tmp, ec);
    throw SimError(fmt::format("not replacing '{}': it is {}", path.string(), blocker));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw SimError(fmt::format("cannot write '{}': {}", path.string(), ec.message()));
}

/// SCALE-Sim's report folder, <output folder>/<run_name>, written as a whole: the reports go
/// to a hidden temporary folder beside it, moved in by publish() once everything succeeded, so
/// an error leaves nothing half-written. An earlier run's reports are refused unless --force.
class ReportFolder {
 public:
  ReportFolder(const std::filesystem::path& out_dir, const workloads::ScalesimConfig& cfg,
               const ScalesimRunOptions& o)
      : final_(out_dir / cfg.run_name), tmp_(out_dir / ("." + cfg.run_name + ".partial")) {
    const std::string& name = cfg.run_name;
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
      throw ConfigError({o.cfg}, "run_name",
                        fmt::format("'{}' cannot name the report folder (SCALE-Sim writes its "
                                    "reports to <output folder>/<run_name>): give a plain name",
                                    name));
    std::error_code ec;
    const bool exists = std::filesystem::exists(final_, ec);
    if (exists && !std::filesystem::is_directory(final_, ec))
      throw ConfigError({"<command line>"}, "",
                        fmt::format("'{}' exists and is not a folder; SCALE-Sim's reports of "
                                    "run_name '{}' go there: give another run_name in {}",
                                    final_.string(), name, o.cfg));
    if (exists && !o.force)
      for (const char* f : kReports)
        if (std::filesystem::exists(final_ / f, ec))
          throw ConfigError(
              {"<command line>"}, "",
              fmt::format("'{}' holds the reports of an earlier run (run_name '{}'); give "
                          "another run_name in {} or add --force to replace them",
                          final_.string(), name, o.cfg));
    std::filesystem::remove_all(tmp_, ec);  // a stale one from a killed run
    std::filesystem::create_directories(tmp_, ec);
    if (ec) throw SimError(fmt::format("cannot create '{}': {}", tmp_.string(), ec.message()));
  }
  ~ReportFolder() {
    std::error_code ec;
    std::filesystem::remove_all(tmp_, ec);
  }
  ReportFolder(const ReportFolder&) = delete;
  ReportFolder& operator=(const ReportFolder&) = delete;

  void write(const std::string& name, const std::string& text) const {
    write_file(tmp_ / name, text);
  }
  /// Moves the reports in: the folder at once when it is new, else (--force) report by report,
  /// leaving any other file in it alone.
  void publish() const {
    std::error_code ec;
    if (!std::filesystem::exists(final_, ec)) {
      std::filesystem::rename(tmp_, final_, ec);
      if (ec)
        throw SimError(fmt::format("cannot rename '{}' to '{}': {}", tmp_.string(), final_.string(),
                                   ec.message()));
      return;
    }
    for (const char* f : kReports) {
      std::filesystem::rename(tmp_ / f, final_ / f, ec);
      if (ec)
        throw SimError(fmt::format("cannot replace '{}': {}", (final_ / f).string(), ec.message()));
    }
  }
  const std::filesystem::path& final_dir() const { return final_; }

 private:
  static constexpr const char* kReports[] = {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv",
                                             "DETAILED_ACCESS_REPORT.csv"};
  std::filesystem::path final_, tmp_;
};

std::string summary(const stats::PointResult& p) {
  const auto& t = p.layers;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < t.rows().size(); ++i) {
    auto n = [&](const char* c) {
      return with_commas(static_cast<unsigned long long>(t.get_int(i, c)));
    };
    rows.push_back(
        {t.get_string(i, "layer"),
         fmt::format("{}x{}x{}", t.get_int(i, "m"), t.get_int(i, "n"), t.get_int(i, "k")),
         fmt::format("{}x{}", t.get_int(i, "row_folds"), t.get_int(i, "col_folds")),
         n("total_cycles"), n("stall_cycles"),
         fmt::format("{:.2f}", t.get_number(i, "overall_util")),
         fmt::format("{:.2f}", t.get_number(i, "mapping_efficiency")),
         fmt::format("{:.2f}", t.get_number(i, "compute_util")), n("dram_ifmap_reads"),
         n("dram_filter_reads"), n("dram_ofmap_writes")});
  }
  return stats::format_table(
      {"layer", "MxNxK", "folds", "total cycles", "stalls", "util %", "map eff %", "comp util %",
       "DRAM ifmap", "DRAM filter", "DRAM ofmap"},
      rows);
}

}  // namespace

stats::PointResult scalesim_point(const workloads::ScalesimConfig& cfg,
                                  const workloads::ScalesimTopology& topo) {
  const auto t0 = std::chrono::steady_clock::now();
  stats::PointResult p;
  p.id = 0;
  p.key = sweep::point_key({});
  p.label = "scalesim";
  p.layers = stats::Table("layers", "one row per layer: SCALE-Sim v2's per-layer numbers");
  std::int64_t cycles = 0, stalls = 0, macs = 0, dram = 0;
  for (size_t i = 0; i < topo.layers.size(); ++i) {
    const auto& tl = topo.layers[i];
    const auto t1 = std::chrono::steady_clock::now();
    ss::LayerResult r;
    try {
      r = ss::simulate_layer(cfg.arch, tl.layer);
    } catch (const WorkloadError& e) {
      throw ConfigError({topo.path, tl.line, 0}, "", e.what());
    }
    p.layers.append(layer_record(static_cast<int>(i), tl.layer, r, seconds_since(t1)));
    cycles += r.total_cycles;
    stalls += r.stall_cycles;
    macs += tl.layer.macs();
    dram += r.dram_ifmap_reads + r.dram_filter_reads + r.dram_ofmap_writes;
  }
  const std::int64_t pes = cfg.arch.rows * cfg.arch.cols;
  p.wall_seconds = seconds_since(t0);
  p.config_yaml = config_yaml(cfg, topo);
  p.metrics.i("total_cycles", "cycles", "sum of SCALE-Sim Total Cycles over the layers", cycles)
      .i("stall_cycles", "cycles", "sum of SCALE-Sim Stall Cycles", stalls)
      .i("macs", "MAC", "multiply-accumulates of the network", macs)
      .f("overall_util", "%", "100 x MACs / (total cycles x PEs)",
         cycles > 0 ? 100.0 * static_cast<double>(macs) / static_cast<double>(cycles * pes) : 0.0)
      .i("dram_words", "words", "DRAM reads and writes of all layers", dram)
      .i("layers", "", "layers simulated", static_cast<std::int64_t>(topo.layers.size()));
  return p;
}

std::string scalesim_compute_report(const stats::PointResult& p) {
  // SCALE-Sim's simulator.py: ', '-joined Python str() of each value, a trailing comma.
  std::string s =
      "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, "
      "Compute Util %,\n";
  const auto& t = p.layers;
  for (size_t i = 0; i < t.rows().size(); ++i)
    s += fmt::format("{}, {}, {}, {}, {}, {},\n", t.get_int(i, "layer_id"),
                     t.get_int(i, "total_cycles"), t.get_int(i, "stall_cycles"),
                     ss::python_float(t.get_number(i, "overall_util")),
                     ss::python_float(t.get_number(i, "mapping_efficiency")),
                     ss::python_float(t.get_number(i, "compute_util")));
  return s;
}

std::string scalesim_bandwidth_report(const stats::PointResult& p) {
  std::string s =
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, "
      "Avg IFMAP DRAM BW, Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n";
  const auto& t = p.layers;
  for (size_t i = 0; i < t.rows().size(); ++i) {
    s += std::to_string(t.get_int(i, "layer_id"));
    for (const char* c : {"avg_ifmap_sram_bw", "avg_filter_sram_bw", "avg_ofmap_sram_bw",
                          "avg_ifmap_dram_bw", "avg_filter_dram_bw", "avg_ofmap_dram_bw"})
      s += ", " + ss::python_float(t.get_number(i, c));
    s += ",\n";
  }
  return s;
}

std::string scalesim_detailed_report(const stats::PointResult& p) {
  // SCALE-Sim v2's simulator.py generate_reports() header, word for word; the row items are
  // single_layer_sim.py get_detail_report_items(). SCALE-Sim takes the start and stop cycles from
  // float trace matrices, so it prints them as floats ("-50.0"); the counts are integers.
  std::string s =
      "LayerID, "
      "SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, "
      "SRAM Filter Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, "
      "SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, "
      "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, "
      "DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, "
      "DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n";
  const auto& t = p.layers;
  auto cycle = [&](size_t i, const std::string& c) {
    return ss::python_float(static_cast<double>(t.get_int(i, c)));
  };
  for (size_t i = 0; i < t.rows().size(); ++i) {
    s += std::to_string(t.get_int(i, "layer_id"));
    for (const char* mem : {"sram", "dram"}) {
      for (const char* op : {"ifmap", "filter", "ofmap"}) {
        const std::string base = std::string(mem) + "_" + op;
        const std::string count = base + (std::string(op) == "ofmap" ? "_writes" : "_reads");
        s += fmt::format(", {}, {}, {}", cycle(i, base + "_start"), cycle(i, base + "_stop"),
                         t.get_int(i, count));
      }
    }
    s += ",\n";
  }
  return s;
}

int run_scalesim(const ScalesimRunOptions& o, const std::string& command_line) {
  const auto t0 = std::chrono::steady_clock::now();
  workloads::ScalesimConfig cfg = workloads::load_scalesim_cfg(o.cfg);
  if (!o.dataflow.empty())
    cfg.arch.dataflow =
        workloads::parse_scalesim_dataflow(o.dataflow, {"<command line>"}, "--dataflow");
  const std::string topo_path = !o.topology.empty() ? o.topology : cfg.topology_path;
  if (topo_path.empty())
    throw ConfigError({"<command line>"}, "--topology",
                      "missing: give the topology CSV (the cfg has no [network_presets] "
                      "TopologyCsvLoc either)");
  const workloads::ScalesimTopology topo = workloads::load_scalesim_topology(topo_path);
  for (const auto& w : cfg.warnings) std::cerr << "simrun: warning: " << w << "\n";
  for (const auto& w : topo.warnings) std::cerr << "simrun: warning: " << w << "\n";

  const std::string out = o.output.empty() ? "results.h5" : o.output;
  // Like SCALE-Sim, create the output directory; the reports go to its <run_name> folder. The
  // output is checked and locked, and an earlier run's reports refused, before anything runs.
  const std::filesystem::path dir = std::filesystem::absolute(out).parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw ConfigError({"<command line>"}, "-o",
                      fmt::format("cannot create '{}': {}", dir.string(), ec.message()));
  check_output_path(out, {o.cfg, topo_path});
  const OutputLock lock(out);
  const ReportFolder reports(dir, cfg, o);
  stats::PointResult p = scalesim_point(cfg, topo);
  stats::RunMeta meta = run_meta(command_line);
  meta.experiment_file = o.cfg;
  meta.experiment_name = cfg.run_name;
  meta.experiment_yaml = p.config_yaml;
  meta.experiment_id = short_hash(p.config_yaml);
  meta.points_total = 1;
  p.config_hash = meta.experiment_id;
  p.code_version = meta.code_version;
  stats::ResultsWriter writer(out, meta);
  writer.write_point(p);
  try {
    reports.write("COMPUTE_REPORT.csv", scalesim_compute_report(p));
    reports.write("BANDWIDTH_REPORT.csv", scalesim_bandwidth_report(p));
    reports.write("DETAILED_ACCESS_REPORT.csv", scalesim_detailed_report(p));
    writer.commit();
  } catch (...) {
    writer.discard();
    throw;
  }
  reports.publish();

  if (!o.quiet) {
    std::cout << fmt::format(
        "simrun {}: SCALE-Sim mode — {} ({}x{} {}, {}), {} ({} layers)\n\n", kVersion, o.cfg,
        cfg.arch.rows, cfg.arch.cols, ss::to_string(cfg.arch.dataflow),
        cfg.arch.user_bandwidth ? fmt::format("USER {} words/cycle", cfg.arch.bandwidth)
                                : std::string("CALC"),
        topo_path, topo.layers.size());
    std::cout << summary(p);
    std::int64_t cycles = 0, stalls = 0;
    for (size_t i = 0; i < p.layers.rows().size(); ++i) {
      cycles += p.layers.get_int(i, "total_cycles");
      stalls += p.layers.get_int(i, "stall_cycles");
    }
    std::cout << fmt::format("\ntotal {} cycles ({} stall) over {} layers, simulated in {:.3f} s\n",
                             with_commas(static_cast<unsigned long long>(cycles)),
                             with_commas(static_cast<unsigned long long>(stalls)),
                             topo.layers.size(), p.wall_seconds);
    std::cout << fmt::format(
        "wrote {} and {}/{{COMPUTE_REPORT,BANDWIDTH_REPORT,DETAILED_ACCESS_REPORT}}.csv in "
        "{:.2f} s\n",
        out, reports.final_dir().string(), seconds_since(t0));
  }
  return 0;
}

}  // namespace systole::app
