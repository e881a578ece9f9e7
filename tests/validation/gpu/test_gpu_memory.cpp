// Validation of the GPU memory hierarchy: STREAM bandwidth (bank-level HBM), L2-resident read
// bandwidth (L2 model) and pointer-chase latencies (L2 model + HBM) predicted from the device
// presets, beside measurements: A100-SXM4-80GB from published microbenchmarks, H100 SXM5 and
// H200 SXM from our own runs (tests/validation/gpu/data, read by gpu_measurements.h). The H200 is
// held out: its presets (configs/presets/h200_sxm.yaml) were written from datasheets and the
// H100 preset's assumptions before any H200 number was compared. README.md beside this file has
// the table, every error and the cause of every miss. The bounds below were stated before the
// first run and are not moved to fit; a bound the model misses is tagged [!mayfail].
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/workloads/gpu_device_fixture.h"
#include "tests/validation/gpu/gpu_measurements.h"
#include "tests/validation/gpu/gpu_memory_predict.h"

using namespace systole;
using namespace systole::test::gpu;

namespace {

// Bounds (stated before the first run): every row within 15% of its measurement; the mean
// absolute error over the rows that are neither calibration nor unmodelled at most 10% (issue
// 11's target), and the same 10% over the held-out H200's rows alone.
constexpr double kRowBound = 0.15;
constexpr double kMeanBound = 0.10;

enum class Kind { kStream, kL2Bandwidth, kL1, kNear, kFar, kDram };

constexpr std::uint64_t kStreamArray = 128ull << 20;  // model arrays; far above every L2
constexpr std::uint64_t kL2Footprint = 16ull << 20;   // inside 8 MiB .. half of every L2
constexpr int kL2Passes = 2;
constexpr std::uint64_t kWarmChase = 4ull << 20;  // inside the measured near plateau (1-8 MiB)
constexpr std::uint64_t kColdChase = 1ull << 30;  // the membench's largest chase footprint
constexpr int kWarmHops = 4000, kColdHops = 2000;

/// One GPU's predictions, each computed on first use (every ctest case is its own process and
/// needs only its rows).
class Model {
 public:
  explicit Model(models::GpuDeviceConfig d) : d_(std::move(d)) {}
  double read() {
    return once(read_, [&] { return predict_stream(d_, {1, 0}, kStreamArray); });
  }
  double copy() {
    return once(copy_, [&] { return predict_stream(d_, {1, 1}, kStreamArray); });
  }
  double triad() {
    return once(triad_, [&] { return predict_stream(d_, {2, 1}, kStreamArray); });
  }
  double l2_read() {
    return once(l2_, [&] { return predict_l2_read(d_, kL2Footprint, kL2Passes); });
  }
  const ChaseLatency& warm() {
    if (!warm_) warm_ = predict_chase(d_, kWarmChase, kWarmHops, true);
    return *warm_;
  }
  const ChaseLatency& cold() {
    if (!cold_) cold_ = predict_chase(d_, kColdChase, kColdHops, false);
    return *cold_;
  }

 private:
  template <typename F>
  static double once(std::optional<double>& v, F f) {
    if (!v) v = f();
    return *v;
  }
  models::GpuDeviceConfig d_;
  std::optional<double> read_, copy_, triad_, l2_;
  std::optional<ChaseLatency> warm_, cold_;
};

/// One line of the validation table; `predict` runs the model (empty: not modelled).
struct Row {
  std::string gpu, what;
  Kind kind;
  std::function<double()> predict;
  double measured;
  std::string unit, source;
  bool held_out = false;
  bool calibration = false;  ///< the preset's value was read from this very measurement
  double predicted() const { return predict ? predict() : 0; }
  double error() const { return predicted() / measured - 1; }
  bool counted() const { return predict && !calibration; }
};

// A100-SXM4-80GB, published (FACTS.md §C.2 gives each; the original files are named here):
//   [GPUBENCH] te42kyfo/gpu-benches: gpu-stream/a100_80.txt (read 1769, scale 1732, triad 1759
//              GB/s), gpu-l2-cache/a100_80.txt (2-26 MB data sets: 5.26-5.48 TB/s, ~5.4),
//              gpu-latency/a100_80.txt at 1410 MHz (L1 36, L2 211, 20-40 MB ~420, DRAM ~570
//              cycles)
//   [AZ-A100]  Azure/AI-benchmarking-guide Azure_Results/ND_A100_v4_results.md (STREAM copy
//              1.61, triad 1.70 TB/s)
constexpr double kA100Clock = 1410e6;
double a100_ns(double cycles) { return cycles / kA100Clock * 1e9; }

void add_common(std::vector<Row>& t, const std::string& gpu, Model& p, const MemoryMeasurement& m,
                const std::string& src, bool held_out) {
  const auto row = [&](const char* what, Kind k, std::function<double()> pred, double meas,
                       const char* unit) {
    t.push_back({gpu, what, k, std::move(pred), meas, unit, src, held_out, false});
  };
  row(
      "STREAM read", Kind::kStream, [&p] { return p.read() / 1e9; }, m.stream_read / 1e9, "GB/s");
  row(
      "STREAM copy", Kind::kStream, [&p] { return p.copy() / 1e9; }, m.stream_copy / 1e9, "GB/s");
  row(
      "STREAM triad", Kind::kStream, [&p] { return p.triad() / 1e9; }, m.stream_triad / 1e9,
      "GB/s");
  row(
      "L2-resident read", Kind::kL2Bandwidth, [&p] { return p.l2_read() / 1e9; }, m.l2_read / 1e9,
      "GB/s");
  row("L1 hit (chase)", Kind::kL1, nullptr, m.l1_ns, "ns");
  row(
      "L2 near hit (chase)", Kind::kNear, [&p] { return p.warm().near_ps / 1e3; }, m.l2_near_ns,
      "ns");
  row(
      "L2 far hit (chase)", Kind::kFar, [&p] { return p.warm().far_ps / 1e3; }, m.l2_far_ns, "ns");
  row(
      "DRAM (chase)", Kind::kDram, [&p] { return p.cold().all_ps / 1e3; }, m.dram_ns, "ns");
}

struct Table {
  std::vector<std::pair<std::string, std::unique_ptr<Model>>> models;
  std::vector<Row> rows;
};

Table build() {
  Table t;
  t.models.emplace_back("A100-80", std::make_unique<Model>(test::a100()));
  t.models.emplace_back("H100 SXM", std::make_unique<Model>(test::h100()));
  t.models.emplace_back("H200 SXM",
                        std::make_unique<Model>(test::load_gpu_device("h200_sxm.yaml")));
  Model& a100 = *t.models[0].second;
  const std::string gb = "te42kyfo/gpu-benches", az = "Azure ND_A100_v4";
  const auto a = [&](const char* what, Kind k, std::function<double()> pred, double meas,
                     const char* unit, const std::string& src, bool calib) {
    t.rows.push_back({"A100-80", what, k, std::move(pred), meas, unit, src, false, calib});
  };
  a(
      "STREAM read", Kind::kStream, [&a100] { return a100.read() / 1e9; }, 1769, "GB/s", gb, false);
  a(
      "STREAM scale (copy)", Kind::kStream, [&a100] { return a100.copy() / 1e9; }, 1732, "GB/s", gb,
      false);
  a(
      "STREAM triad", Kind::kStream, [&a100] { return a100.triad() / 1e9; }, 1759, "GB/s", gb,
      false);
  a(
      "STREAM copy", Kind::kStream, [&a100] { return a100.copy() / 1e9; }, 1610, "GB/s", az, false);
  a(
      "STREAM triad", Kind::kStream, [&a100] { return a100.triad() / 1e9; }, 1700, "GB/s", az,
      false);
  a(
      "L2-resident read", Kind::kL2Bandwidth, [&a100] { return a100.l2_read() / 1e9; }, 5400,
      "GB/s", gb, false);
  a("L1 hit (chase)", Kind::kL1, nullptr, a100_ns(36), "ns", gb, false);
  // The A100 preset's L2 hit latency (211), far penalty (1.75x, the same source's README) and
  // HBM latency (570 - 211 cycles less tRCD + tCL) were read from these very measurements.
  a(
      "L2 near hit (chase)", Kind::kNear, [&a100] { return a100.warm().near_ps / 1e3; },
      a100_ns(211), "ns", gb, true);
  a(
      "L2 far hit (chase)", Kind::kFar, [&a100] { return a100.warm().far_ps / 1e3; }, a100_ns(420),
      "ns", gb, true);
  a(
      "DRAM (chase)", Kind::kDram, [&a100] { return a100.cold().all_ps / 1e3; }, a100_ns(570), "ns",
      gb, true);
  add_common(t.rows, "H100 SXM", *t.models[1].second, measure_memory({"h100_run1", "h100_run2"}),
             "ours (2 runs)", false);
  add_common(t.rows, "H200 SXM", *t.models[2].second, measure_memory({"h200_run1"}), "ours", true);
  return t;
}

Table& table() {
  static Table t = build();
  return t;
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f" : "%.1f", v);
  return b;
}

/// Mean absolute error over the counted rows that `keep` accepts.
template <typename F>
double mean_error(F keep) {
  double sum = 0;
  int n = 0;
  for (const auto& r : table().rows)
    if (r.counted() && keep(r)) {
      sum += std::fabs(r.error());
      ++n;
    }
  return n ? sum / n : 0;
}

void check_rows(Kind k) {
  for (const auto& r : table().rows)
    if (r.kind == k && r.counted()) {
      INFO(r.gpu << " " << r.what << ": predicted " << r.predicted() << " " << r.unit
                 << ", measured " << r.measured << " (" << r.source << ")");
      CHECK(std::fabs(r.error()) <= kRowBound);
    }
}

}  // namespace

TEST_CASE("STREAM bandwidth from the bank-level HBM within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kStream);
}

// Missed (README.md): A100 +21.7% (its preset's 64 B/clk ports and slice-wide crossbars, not
// measured) and H200 +20.2%. Since the H100/H200 crossbar and ports were set from the H200's
// measured ceilings (test_gpu_l2_ceiling.cpp), the model reads at 8.5 TB/s what the GPUs read at
// 7.1-7.4 with readbw's 32 KiB in flight per SM: the load path's own cost is not modelled.
TEST_CASE("L2-resident read bandwidth from the L2 model within 15%",
          "[validation][gpu][memory][!mayfail]") {
  check_rows(Kind::kL2Bandwidth);
}

TEST_CASE("Pointer-chase L2 near-hit latency within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kNear);
}

TEST_CASE("Pointer-chase L2 far-hit latency within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kFar);
}

// Missed (README.md): the L2 model adds the far-partition penalty to the misses homed in the far
// partition (half of a random chase), and the presets' hbm.latency was derived from the DRAM
// latency minus the near hit without it; the measured DRAM chase equals the model's near-homed
// misses at hbm.latency 150 ns (the low end of its stated range).
TEST_CASE("Pointer-chase DRAM latency within 15%", "[validation][gpu][memory][!mayfail]") {
  check_rows(Kind::kDram);
}

// Met since 2026-11-28 (9.0%; 12.6% before the L2 crossbar and ports were measured).
TEST_CASE("GPU memory table: mean absolute error at most 10% (the table printed for README.md)",
          "[validation][gpu][memory]") {
  std::printf("| GPU | quantity | predicted | measured | error | source |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& r : table().rows) {
    const double pred = r.predicted();
    std::string err = r.predict ? fmt(100 * r.error()) + "%" : "not modelled";
    if (r.calibration) err += " (calibration)";
    std::printf("| %s%s | %s | %s | %s %s | %s | %s |\n", r.gpu.c_str(),
                r.held_out ? " (held out)" : "", r.what.c_str(),
                r.predict ? fmt(pred).c_str() : "-", fmt(r.measured).c_str(), r.unit.c_str(),
                err.c_str(), r.source.c_str());
  }
  for (auto& [gpu, m] : table().models) {
    const ChaseLatency &w = m->warm(), &c = m->cold();
    std::printf(
        "%s model chase: 4 MiB warm near %.1f ns, far %.1f ns, all %.1f ns (near share "
        "%.2f); 1 GiB cold near %.1f ns, far %.1f ns, all %.1f ns (hit rate %.3f)\n",
        gpu.c_str(), w.near_ps / 1e3, w.far_ps / 1e3, w.all_ps / 1e3, w.near_share, c.near_ps / 1e3,
        c.far_ps / 1e3, c.all_ps / 1e3, c.hit_rate);
  }
  std::printf("mean |error| %.1f%% (all counted rows), %.1f%% (H200, held out)\n",
              100 * mean_error([](const Row&) { return true; }),
              100 * mean_error([](const Row& r) { return r.held_out; }));
  CHECK(table().rows.size() == 26);
  CHECK(mean_error([](const Row&) { return true; }) <= kMeanBound);
}

// Missed (README.md): the H200's L2-resident bandwidth (+20.2%) and DRAM latency (+35.6%) rows:
// 10.3% (17.1% before the L2 change).
TEST_CASE("GPU memory table, H200 held out: mean absolute error at most 10%",
          "[validation][gpu][memory][!mayfail]") {
  CHECK(mean_error([](const Row& r) { return r.held_out; }) <= kMeanBound);
}

TEST_CASE("GPU measurement files read back as written", "[validation][gpu][data]") {
  // The loader against values read by eye from the CSVs, so a parsing slip cannot pass unseen.
  const auto rows = load_rows("h100_run1");
  CHECK(find_row(rows, "stream", "copy").gbytes_per_s == Approx(3012.8));
  CHECK(find_row(rows, "gemm", "mm", "8192x8192x8192").tflops == Approx(716.23));
  CHECK_THAT(find_row(rows, "gemm", "mm", "16x12288x12288").kernels,
             Catch::Contains("splitKreduce_kernel<32, 16, int"));
  const auto m = load_membench("h200_run1");
  CHECK(m.sms == 132);
  CHECK(m.l2_bytes == 62914560u);
  CHECK(m.clock_hz == Approx(1.98e9));
  CHECK(m.chase.size() == 23);
  CHECK(m.readbw.back().gbytes_per_s == Approx(4457.7));
  CHECK_THROWS(load_rows("no_such_run"));
}

TEST_CASE("GPU memory sensitivity of the missed rows to the presets' assumptions (not applied)",
          "[.][sensitivity][gpu][memory]") {
  // README.md quotes this; nothing here changes a preset. Each override stays inside the range
  // the preset states for the assumption.
  const std::pair<const char*, const char*> files[] = {{"A100-80", "a100_sxm4_80gb.yaml"},
                                                       {"H100 SXM", "h100_sxm5.yaml"},
                                                       {"H200 SXM", "h200_sxm.yaml"}};
  for (const auto& [gpu, file] : files) {
    for (const char* o : {"{l2: {port_bandwidth: 32}}", "{l2: {port_bandwidth: 48}}"})
      std::printf("%s %s: L2-resident read %.0f GB/s\n", gpu, o,
                  predict_l2_read(test::load_gpu_device(file, o), kL2Footprint, kL2Passes) / 1e9);
    const auto c = predict_chase(test::load_gpu_device(file, "{hbm: {latency: 150ns}}"), kColdChase,
                                 kColdHops, false);
    std::printf("%s hbm.latency 150ns: DRAM chase all %.1f ns (near-homed %.1f, far-homed %.1f)\n",
                gpu, c.all_ps / 1e3, c.near_ps / 1e3, c.far_ps / 1e3);
  }
}
