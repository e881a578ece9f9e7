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
#include <string>
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

/// One line of the validation table.
struct Row {
  std::string gpu, what;
  Kind kind;
  double predicted;  ///< 0: not modelled
  double measured;
  std::string unit, source;
  bool held_out = false;
  bool calibration = false;  ///< the preset's value was read from this very measurement
  double error() const { return predicted / measured - 1; }
  bool counted() const { return predicted > 0 && !calibration; }
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

constexpr std::uint64_t kStreamArray = 128ull << 20;  // model arrays; far above every L2
constexpr std::uint64_t kL2Footprint = 16ull << 20;   // inside 8 MiB .. half of every L2
constexpr int kL2Passes = 2;
constexpr std::uint64_t kWarmChase = 4ull << 20;  // inside the measured near plateau (1-8 MiB)
constexpr std::uint64_t kColdChase = 1ull << 30;  // the membench's largest chase footprint
constexpr int kWarmHops = 4000, kColdHops = 2000;

/// The model's side of one GPU.
struct Predicted {
  double read, copy, triad, l2_read;
  ChaseLatency warm, cold;
};

Predicted predict(const models::GpuDeviceConfig& d) {
  Predicted p{};
  p.read = predict_stream(d, {1, 0}, kStreamArray);
  p.copy = predict_stream(d, {1, 1}, kStreamArray);
  p.triad = predict_stream(d, {2, 1}, kStreamArray);
  p.l2_read = predict_l2_read(d, kL2Footprint, kL2Passes);
  p.warm = predict_chase(d, kWarmChase, kWarmHops, true);
  p.cold = predict_chase(d, kColdChase, kColdHops, false);
  return p;
}

void add_common(std::vector<Row>& t, const std::string& gpu, const Predicted& p,
                const MemoryMeasurement& m, const std::string& src, bool held_out) {
  const auto row = [&](const char* what, Kind k, double pred, double meas, const char* unit) {
    t.push_back({gpu, what, k, pred, meas, unit, src, held_out, false});
  };
  row("STREAM read", Kind::kStream, p.read / 1e9, m.stream_read / 1e9, "GB/s");
  row("STREAM copy", Kind::kStream, p.copy / 1e9, m.stream_copy / 1e9, "GB/s");
  row("STREAM triad", Kind::kStream, p.triad / 1e9, m.stream_triad / 1e9, "GB/s");
  row("L2-resident read", Kind::kL2Bandwidth, p.l2_read / 1e9, m.l2_read / 1e9, "GB/s");
  row("L1 hit (chase)", Kind::kL1, 0, m.l1_ns, "ns");
  row("L2 near hit (chase)", Kind::kNear, p.warm.near_ps / 1e3, m.l2_near_ns, "ns");
  row("L2 far hit (chase)", Kind::kFar, p.warm.far_ps / 1e3, m.l2_far_ns, "ns");
  row("DRAM (chase)", Kind::kDram, p.cold.all_ps / 1e3, m.dram_ns, "ns");
}

struct Table {
  std::vector<Row> rows;
  std::vector<std::pair<std::string, Predicted>> predicted;
};

Table build() {
  Table t;
  const auto a100 = predict(test::a100());
  const auto h100 = predict(test::h100());
  const auto h200 = predict(test::load_gpu_device("h200_sxm.yaml"));
  t.predicted = {{"A100-80", a100}, {"H100 SXM", h100}, {"H200 SXM", h200}};
  const std::string gb = "te42kyfo/gpu-benches", az = "Azure ND_A100_v4";
  const auto a = [&](const char* what, Kind k, double pred, double meas, const char* unit,
                     const std::string& src, bool calib) {
    t.rows.push_back({"A100-80", what, k, pred, meas, unit, src, false, calib});
  };
  a("STREAM read", Kind::kStream, a100.read / 1e9, 1769, "GB/s", gb, false);
  a("STREAM scale (copy)", Kind::kStream, a100.copy / 1e9, 1732, "GB/s", gb, false);
  a("STREAM triad", Kind::kStream, a100.triad / 1e9, 1759, "GB/s", gb, false);
  a("STREAM copy", Kind::kStream, a100.copy / 1e9, 1610, "GB/s", az, false);
  a("STREAM triad", Kind::kStream, a100.triad / 1e9, 1700, "GB/s", az, false);
  a("L2-resident read", Kind::kL2Bandwidth, a100.l2_read / 1e9, 5400, "GB/s", gb, false);
  a("L1 hit (chase)", Kind::kL1, 0, a100_ns(36), "ns", gb, false);
  // The A100 preset's L2 hit latency (211), far penalty (1.75x, the same source's README) and
  // HBM latency (570 - 211 cycles less tRCD + tCL) were read from these very measurements.
  a("L2 near hit (chase)", Kind::kNear, a100.warm.near_ps / 1e3, a100_ns(211), "ns", gb, true);
  a("L2 far hit (chase)", Kind::kFar, a100.warm.far_ps / 1e3, a100_ns(420), "ns", gb, true);
  a("DRAM (chase)", Kind::kDram, a100.cold.all_ps / 1e3, a100_ns(570), "ns", gb, true);
  add_common(t.rows, "H100 SXM", h100, measure_memory({"h100_run1", "h100_run2"}), "ours (2 runs)",
             false);
  add_common(t.rows, "H200 SXM", h200, measure_memory({"h200_run1"}), "ours", true);
  return t;
}

const Table& table() {
  static const Table t = build();
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
      INFO(r.gpu << " " << r.what << ": predicted " << r.predicted << " " << r.unit << ", measured "
                 << r.measured << " (" << r.source << ")");
      CHECK(std::fabs(r.error()) <= kRowBound);
    }
}

}  // namespace

TEST_CASE("GPU memory validation table (printed for README.md)", "[validation][gpu][memory]") {
  std::printf("| GPU | quantity | predicted | measured | error | source |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& r : table().rows) {
    std::string err = r.predicted > 0 ? fmt(100 * r.error()) + "%" : "not modelled";
    if (r.calibration) err += " (calibration)";
    std::printf("| %s%s | %s | %s | %s %s | %s | %s |\n", r.gpu.c_str(),
                r.held_out ? " (held out)" : "", r.what.c_str(),
                r.predicted > 0 ? fmt(r.predicted).c_str() : "-", fmt(r.measured).c_str(),
                r.unit.c_str(), err.c_str(), r.source.c_str());
  }
  for (const auto& [gpu, p] : table().predicted)
    std::printf(
        "%s model chase: 4 MiB warm near %.1f ns, far %.1f ns, all %.1f ns (near share "
        "%.2f); 1 GiB cold near %.1f ns, far %.1f ns, all %.1f ns (hit rate %.3f)\n",
        gpu.c_str(), p.warm.near_ps / 1e3, p.warm.far_ps / 1e3, p.warm.all_ps / 1e3,
        p.warm.near_share, p.cold.near_ps / 1e3, p.cold.far_ps / 1e3, p.cold.all_ps / 1e3,
        p.cold.hit_rate);
  std::printf("mean |error| %.1f%% (all counted rows), %.1f%% (H200, held out)\n",
              100 * mean_error([](const Row&) { return true; }),
              100 * mean_error([](const Row& r) { return r.held_out; }));
  CHECK(table().rows.size() == 26);
}

TEST_CASE("STREAM bandwidth from the bank-level HBM within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kStream);
}

TEST_CASE("L2-resident read bandwidth from the L2 model within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kL2Bandwidth);
}

TEST_CASE("Pointer-chase L2 near-hit latency within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kNear);
}

TEST_CASE("Pointer-chase L2 far-hit latency within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kFar);
}

TEST_CASE("Pointer-chase DRAM latency within 15%", "[validation][gpu][memory]") {
  check_rows(Kind::kDram);
}

TEST_CASE("GPU memory table: mean absolute error at most 10%", "[validation][gpu][memory]") {
  CHECK(mean_error([](const Row&) { return true; }) <= kMeanBound);
}

TEST_CASE("GPU memory table, H200 held out: mean absolute error at most 10%",
          "[validation][gpu][memory]") {
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
