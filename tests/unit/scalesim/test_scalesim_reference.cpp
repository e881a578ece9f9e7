// Every row of tests/data/scalesim/layers.csv — SCALE-Sim v2's own per-layer results, measured
// by running it (see ../shared/reference/scalesim/NOTES.md) — reproduced by the scalesim timing
// model at the precision SCALE-Sim printed: report CSV values to the last digit of Python's
// repr, stdout values (runs cut off before their reports) to 2 or 3 decimals as printed.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <map>

#include "models/scalesim/scalesim_geometry.h"
#include "models/scalesim/scalesim_replay.h"
#include "models/scalesim/scalesim_timing.h"
#include "tests/unit/scalesim/scalesim_csv.h"
#include "workloads/frontends/scalesim_cfg.h"
#include "workloads/frontends/scalesim_topology.h"

using namespace systole;
using models::scalesim::LayerResult;
using models::scalesim::python_float;

namespace {

struct Checker {
  std::vector<std::string> failures;
  int compared = 0;
  void same(const std::string& key, const char* field, const std::string& ours,
            const std::string& ref) {
    if (ref.empty()) return;  // not reported for this row
    ++compared;
    if (ours != ref)
      failures.push_back(fmt::format("{} {}: ours {} ref {}", key, field, ours, ref));
  }
};

}  // namespace

TEST_CASE("scalesim mode reproduces every SCALE-Sim row of layers.csv", "[scalesim]") {
  const auto rows = test::read_csv(test::scalesim_data("layers.csv"));
  REQUIRE(rows.size() == 389);
  Checker ck;
  int report_rows = 0, stdout_rows = 0;
  double slowest = 0;
  std::string slowest_key;
  for (const auto& row : rows) {
    const std::string key = test::row_key(row);
    const auto layer = test::row_layer(row);
    const auto t0 = std::chrono::steady_clock::now();
    const LayerResult r = models::scalesim::simulate_layer(test::row_array(row), layer);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (dt > slowest) slowest = dt, slowest_key = key;
    auto i = [](std::int64_t v) { return std::to_string(v); };
    // The layer as SCALE-Sim read it.
    ck.same(key, "ofmap_h", i(layer.ofmap_h()), row["ofmap_h"]);
    ck.same(key, "ofmap_w", i(layer.ofmap_w()), row["ofmap_w"]);
    ck.same(key, "gemm_M", i(layer.gemm_m()), row["gemm_M"]);
    ck.same(key, "gemm_N", i(layer.gemm_n()), row["gemm_N"]);
    ck.same(key, "gemm_K", i(layer.gemm_k()), row["gemm_K"]);
    ck.same(key, "macs", i(layer.macs()), row["macs"]);
    ck.same(key, "closed_form_cycles_no_stall", i(r.compute_cycles),
            row["closed_form_cycles_no_stall"]);
    // COMPUTE_REPORT and the stdout summary.
    ck.same(key, "total_cycles", i(r.total_cycles), row["total_cycles"]);
    ck.same(key, "stall_cycles", i(r.stall_cycles), row["stall_cycles"]);
    const bool report = row["result_source"] == "report_csv";
    auto f2 = [&](double v) { return report ? python_float(v) : fmt::format("{:.2f}", v); };
    auto f3 = [&](double v) { return report ? python_float(v) : fmt::format("{:.3f}", v); };
    ck.same(key, "overall_util_pct", f2(r.overall_util_pct), row["overall_util_pct"]);
    ck.same(key, "mapping_eff_pct", f2(r.mapping_efficiency_pct), row["mapping_eff_pct"]);
    ck.same(key, "compute_util_pct", python_float(r.compute_util_pct), row["compute_util_pct"]);
    // BANDWIDTH_REPORT (stdout prints the three DRAM values with 3 decimals).
    ck.same(key, "avg_ifmap_sram_bw", python_float(r.avg_ifmap_sram_bw), row["avg_ifmap_sram_bw"]);
    ck.same(key, "avg_filter_sram_bw", python_float(r.avg_filter_sram_bw),
            row["avg_filter_sram_bw"]);
    ck.same(key, "avg_ofmap_sram_bw", python_float(r.avg_ofmap_sram_bw), row["avg_ofmap_sram_bw"]);
    ck.same(key, "avg_ifmap_dram_bw", f3(r.avg_ifmap_dram_bw), row["avg_ifmap_dram_bw"]);
    ck.same(key, "avg_filter_dram_bw", f3(r.avg_filter_dram_bw), row["avg_filter_dram_bw"]);
    ck.same(key, "avg_ofmap_dram_bw", f3(r.avg_ofmap_dram_bw), row["avg_ofmap_dram_bw"]);
    // DETAILED_ACCESS_REPORT counts.
    ck.same(key, "sram_ifmap_reads", i(r.sram_ifmap_reads), row["sram_ifmap_reads"]);
    ck.same(key, "sram_filter_reads", i(r.sram_filter_reads), row["sram_filter_reads"]);
    ck.same(key, "sram_ofmap_writes", i(r.sram_ofmap_writes), row["sram_ofmap_writes"]);
    ck.same(key, "dram_ifmap_reads", i(r.dram_ifmap_reads), row["dram_ifmap_reads"]);
    ck.same(key, "dram_filter_reads", i(r.dram_filter_reads), row["dram_filter_reads"]);
    ck.same(key, "dram_ofmap_writes", i(r.dram_ofmap_writes), row["dram_ofmap_writes"]);
    ck.same(key, "dram_window_cycles_v3style", i(r.cycles_incl_prefetch),
            row["dram_window_cycles_v3style"]);
    (report ? report_rows : stdout_rows)++;
  }
  for (const auto& f : ck.failures) UNSCOPED_INFO(f);
  std::cout << fmt::format(
      "scalesim reference: {} rows ({} from report CSVs, {} from stdout), {} values compared, {} "
      "differ; slowest layer {:.3f} s ({})\n",
      rows.size(), report_rows, stdout_rows, ck.compared, ck.failures.size(), slowest, slowest_key);
  CHECK(ck.failures.empty());
}

TEST_CASE("the literal scalesim replay reproduces SCALE-Sim's one-layer test runs", "[scalesim]") {
  // The replay is the reference fidelity the fast model is proven against on random shapes;
  // here it is anchored to SCALE-Sim itself on the small topologies (every config, CALC and USER).
  int n = 0;
  for (const auto& row : test::read_csv(test::scalesim_data("layers.csv"))) {
    if (row["topology"] != "test_conv" && row["topology"] != "test_mnk") continue;
    INFO(test::row_key(row));
    const auto r = models::scalesim::replay_layer(test::row_array(row), test::row_layer(row));
    CHECK(std::to_string(r.total_cycles) == row["total_cycles"]);
    CHECK(std::to_string(r.stall_cycles) == row["stall_cycles"]);
    CHECK(python_float(r.overall_util_pct) == row["overall_util_pct"]);
    CHECK(python_float(r.compute_util_pct) == row["compute_util_pct"]);
    CHECK(std::to_string(r.dram_ifmap_reads) == row["dram_ifmap_reads"]);
    CHECK(std::to_string(r.dram_filter_reads) == row["dram_filter_reads"]);
    CHECK(std::to_string(r.dram_ofmap_writes) == row["dram_ofmap_writes"]);
    CHECK(python_float(r.avg_ifmap_dram_bw) == row["avg_ifmap_dram_bw"]);
    CHECK(python_float(r.avg_filter_dram_bw) == row["avg_filter_dram_bw"]);
    CHECK(python_float(r.avg_ofmap_dram_bw) == row["avg_ofmap_dram_bw"]);
    CHECK(std::to_string(r.cycles_incl_prefetch) == row["dram_window_cycles_v3style"]);
    ++n;
  }
  CHECK(n == 24);
}

TEST_CASE("reconstructed networks match SCALE-Sim's run totals", "[scalesim]") {
  // tests/data/scalesim/topologies/ were regenerated from layers.csv, with YOLO-tiny's last three
  // and GPT-2's last two layers reconstructed (README.md there). Every run of runs.csv: the
  // closed-form total over all layers equals the reference's, and the layers SCALE-Sim finished
  // sum to its reported total and stall cycles.
  const std::map<std::string, std::string> files = {{"alexnet", "alexnet"},
                                                    {"Resnet18", "resnet18"},
                                                    {"yolo_tiny", "yolo_tiny"},
                                                    {"mobilenet", "mobilenet"},
                                                    {"NCF", "ncf"},
                                                    {"gpt2", "gpt2"},
                                                    {"test_conv", "test_conv"},
                                                    {"test_mnk", "test_mnk"},
                                                    {"transformer_partial", "transformer_partial"}};
  const std::map<std::string, std::string> cfgs = {{"scale", "scale"},
                                                   {"google", "google"},
                                                   {"eyeriss", "eyeriss"},
                                                   {"scaleUSERbw10", "scale_user_bw10"},
                                                   {"sq128", "sq128"}};
  std::map<std::string, std::string> closed;  // config/topology/dataflow -> closed-form total
  for (const auto& t : test::read_csv(test::scalesim_data("totals.csv")))
    closed[t["config"] + "/" + t["topology"] + "/" + t["dataflow"]] =
        t["closed_form_sum_all_layers_no_stall"];
  int checked_closed = 0, checked_sums = 0;
  for (const auto& run : test::read_csv(test::scalesim_data("runs.csv"))) {
    const std::string key = run["config"] + "/" + run["topology"] + "/" + run["dataflow"];
    INFO(key);
    if (run["topology"] == "gnmt") continue;  // never run, and no dimensions in layers.csv
    auto cfg = workloads::load_scalesim_cfg(
        test::scalesim_data("configs/" + cfgs.at(run["config"]) + ".cfg"));
    cfg.arch.dataflow = test::parse_dataflow(run["dataflow"]);
    std::vector<models::scalesim::ConvLayer> layers;
    if (run["topology"].rfind("gemm_", 0) == 0) {
      const std::int64_t n = std::stoll(run["topology"].substr(5));
      layers.push_back(models::scalesim::ConvLayer::gemm("g", n, n, n));
    } else {
      const auto topo = workloads::load_scalesim_topology(
          test::scalesim_data("topologies/" + files.at(run["topology"]) + ".csv"));
      for (const auto& l : topo.layers) layers.push_back(l.layer);
    }
    REQUIRE(std::to_string(layers.size()) == run["n_layers"]);
    std::int64_t closed_sum = 0;
    for (const auto& l : layers) {
      const auto g = models::scalesim::make_geometry(cfg.arch, l);
      closed_sum += g.folds() * g.fold_cycles - 1;
    }
    std::string expected = closed.count(key) ? closed[key] : "";
    const auto at = run["note"].find("closed-form total (no stalls) = ");
    if (at != std::string::npos) expected = run["note"].substr(at + 32);
    if (!expected.empty()) {
      CHECK(std::to_string(closed_sum) == expected);
      ++checked_closed;
    }
    const std::string done = run["layers_with_results"];
    if (!done.empty() && done != "0" && !run["sum_total_cycles"].empty()) {
      std::int64_t total = 0, stall = 0;
      for (int i = 0; i < std::stoi(done); ++i) {
        const auto r = models::scalesim::simulate_layer(cfg.arch, layers[static_cast<size_t>(i)]);
        total += r.total_cycles;
        stall += r.stall_cycles;
      }
      CHECK(std::to_string(total) == run["sum_total_cycles"]);
      CHECK(std::to_string(stall) == run["sum_stall_cycles"]);
      ++checked_sums;
    }
  }
  CHECK(checked_closed >= 70);
  CHECK(checked_sums >= 60);
}

// tests/data/scalesim/detailed_small.csv: SCALE-Sim v2 (scale-sim-v2@22f88b1, Python 3.11,
// numpy 1.24) run on four small convolutions (one with windows past the input) on an 8x6 array
// in CALC mode and a 5x7 array in USER mode with 1 kB SRAMs and bandwidth 3 (read stalls), each
// dataflow: every DETAILED_ACCESS_REPORT item, the SRAM start/stop cycles included, as printed.
TEST_CASE("scalesim mode reproduces SCALE-Sim's DETAILED_ACCESS_REPORT on small layers",
          "[scalesim]") {
  const auto rows = test::read_csv(test::scalesim_data("detailed_small.csv"));
  REQUIRE(rows.size() == 24);
  Checker ck;
  for (const auto& row : rows) {
    const models::scalesim::ArrayConfig a = test::row_array(row);
    const models::scalesim::ConvLayer l = test::row_layer(row);
    const std::string key = row["bw_mode"] + " " + row["dataflow"] + " " + l.name;
    auto cyc = [](std::int64_t v) { return python_float(static_cast<double>(v)); };
    auto num = [](std::int64_t v) { return std::to_string(v); };
    for (const LayerResult& r :
         {models::scalesim::simulate_layer(a, l), models::scalesim::replay_layer(a, l)}) {
      ck.same(key, "sram_ifmap_start", cyc(r.sram_ifmap_start), row["sram_ifmap_start_cycle"]);
      ck.same(key, "sram_ifmap_stop", cyc(r.sram_ifmap_stop), row["sram_ifmap_stop_cycle"]);
      ck.same(key, "sram_filter_start", cyc(r.sram_filter_start), row["sram_filter_start_cycle"]);
      ck.same(key, "sram_filter_stop", cyc(r.sram_filter_stop), row["sram_filter_stop_cycle"]);
      ck.same(key, "sram_ofmap_start", cyc(r.sram_ofmap_start), row["sram_ofmap_start_cycle"]);
      ck.same(key, "sram_ofmap_stop", cyc(r.sram_ofmap_stop), row["sram_ofmap_stop_cycle"]);
      ck.same(key, "sram_ifmap_reads", num(r.sram_ifmap_reads), row["sram_ifmap_reads"]);
      ck.same(key, "sram_filter_reads", num(r.sram_filter_reads), row["sram_filter_reads"]);
      ck.same(key, "sram_ofmap_writes", num(r.sram_ofmap_writes), row["sram_ofmap_writes"]);
      ck.same(key, "dram_ifmap_start", cyc(r.dram_ifmap_start), row["dram_ifmap_start_cycle"]);
      ck.same(key, "dram_ifmap_stop", cyc(r.dram_ifmap_stop), row["dram_ifmap_stop_cycle"]);
      ck.same(key, "dram_ifmap_reads", num(r.dram_ifmap_reads), row["dram_ifmap_reads"]);
      ck.same(key, "dram_filter_start", cyc(r.dram_filter_start), row["dram_filter_start_cycle"]);
      ck.same(key, "dram_filter_stop", cyc(r.dram_filter_stop), row["dram_filter_stop_cycle"]);
      ck.same(key, "dram_filter_reads", num(r.dram_filter_reads), row["dram_filter_reads"]);
      ck.same(key, "dram_ofmap_start", cyc(r.dram_ofmap_start), row["dram_ofmap_start_cycle"]);
      ck.same(key, "dram_ofmap_stop", cyc(r.dram_ofmap_stop), row["dram_ofmap_stop_cycle"]);
      ck.same(key, "dram_ofmap_writes", num(r.dram_ofmap_writes), row["dram_ofmap_writes"]);
    }
  }
  for (const auto& f : ck.failures) UNSCOPED_INFO(f);
  CHECK(ck.compared == 24 * 2 * 18);
  CHECK(ck.failures.empty());
}
