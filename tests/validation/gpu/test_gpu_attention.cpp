// FlashAttention validation of the GPU device (issue 11): every point runs through `simrun` on
// the SystemC device (the FA-2 / FA-3 model on the SMs, its Q tiles, K/V blocks and O stores
// through the L2 with tags and the bank-level HBM) and is compared with a measurement: our H100
// SXM runs (data/h100_run1.csv, h100_run2.csv; README.md beside this file: how measured), the
// `sdpa_flash` rows (PyTorch's flash backend: the FA-2 kernel; run here with force_fa2) and
// the `sdpa_cudnn` rows (cuDNN's sm90 wgmma flash kernel, FA-3 class; run here as FA-3), heads
// 16, head_dim 128, batch x seq = 16k tokens, non-causal and causal; and FA-2 on A100 SXM4
// 80GB from Azure/AI-benchmarking-guide (Azure_Results/ND_A100_v4_results.md: FlashAttention-2,
// batch 2, heads 32, seq 8192, head_dim 64: 179.5 TFLOP/s).
// TFLOP/s = 4 b h s^2 d (halved when causal, as the measurement counts) / simulated time
// (launch overhead and inter-kernel gap included, as in the GEMM table).
// Bound, stated before the first run: mean |error| <= 10% over the table. Misses are reported
// with their causes (models/gpu_sm/README.md "Simulated vs measured"), never by widening it.
// CI time: the seq points are the cheap end of the sweep (a point's simulation cost grows with
// b h s^2); seq 8192 at b2 h16 is the speed benchmark's shape (tools/bench).

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"
#include "tests/validation/gpu/gpu_measurements.h"

namespace systole {
namespace {

struct Point {
  std::string gpu, kernel, measured_as;
  std::int64_t b = 0, h = 0, s = 0, d = 0;
  std::int64_t hkv = 0, skv = 0;  ///< K/V heads and keys (= h and s unless the layer says)
  bool causal = false;
  double measured_tflops = 0, simulated_tflops = 0;
  double error() const { return simulated_tflops / measured_tflops - 1; }
  std::string shape() const { return fmt::format("b{}_h{}_s{}_d{}", b, h, s, d); }
  /// 4 b h s_q s_kv d, halved when causal (as PyTorch's and TritonBench's rows count).
  double flops() const {
    return 4.0 * static_cast<double>(b * h * d) * static_cast<double>(s) *
           static_cast<double>(skv) / (causal ? 2 : 1);
  }
};

/// Every point of experiment `file` (one attention layer per point), simulated.
std::vector<Point> simulate(const std::string& gpu, const std::string& file) {
  test::TempDir dir;
  const auto r = test::simrun(
      test::source_dir() + "/tests/validation/gpu/" + file + " -o out.h5 -q -j 2", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<Point> out;
  for (const auto& p : stats::read_points(dir.file("out.h5"))) {
    INFO(p.error);
    REQUIRE(p.ok());
    const auto& l = p.layers;
    REQUIRE(l.rows().size() == 1);
    Point pt;
    pt.gpu = gpu;
    const std::string shape = l.get_string(0, "shape");
    REQUIRE(std::sscanf(shape.c_str(), "b%ld h%ld/%ld q%ld kv%ld d%ld", &pt.b, &pt.h, &pt.hkv,
                        &pt.s, &pt.skv, &pt.d) == 6);
    pt.causal = shape.find("causal") != std::string::npos;
    pt.kernel = l.get_string(0, "tile").substr(0, 3);
    pt.simulated_tflops = pt.flops() / l.get_number(0, "time") / 1e12;
    out.push_back(pt);
  }
  return out;
}

/// Mean measured TFLOP/s over every row of the runs with this name and shape.
double measured(const std::string& name, const std::string& shape) {
  double sum = 0;
  int n = 0;
  for (const std::string run : {"h100_run1", "h100_run2"})
    for (const auto& row : test::gpu::load_rows(run))
      if (row.group == "attention" && row.name == name && row.shape == shape) {
        sum += row.tflops;
        ++n;
      }
  INFO(name << " " << shape);
  REQUIRE(n > 0);
  return sum / n;
}

const std::vector<Point>& table() {
  static const std::vector<Point> pts = [] {
    std::vector<Point> out;
    for (Point p : simulate("H100 SXM", "attention_h100.yaml")) {
      p.measured_as = std::string(p.kernel == "fa2" ? "sdpa_flash" : "sdpa_cudnn") +
                      (p.causal ? "_causal" : "");
      p.measured_tflops = measured(p.measured_as, p.shape());
      out.push_back(p);
    }
    for (Point p : simulate("A100 SXM4 80GB", "attention_a100.yaml")) {
      p.measured_as = "Azure ND A100 v4";
      p.measured_tflops = 179.5;
      out.push_back(p);
    }
    std::cout << "\nGPU FlashAttention validation (TFLOP/s)\n| GPU | kernel | shape | measured "
                 "(as) | simulated | error |\n|---|---|---|---|---|---|\n";
    for (const auto& p : out)
      std::cout << fmt::format("| {} | {}{} | {} | {:.1f} ({}) | {:.1f} | {:+.1f}% |\n", p.gpu,
                               p.kernel, p.causal ? " causal" : "", p.shape(), p.measured_tflops,
                               p.measured_as, p.simulated_tflops, 100 * p.error());
    return out;
  }();
  return pts;
}

/// The plan of experiment `file`: each point's label line and the lines after it.
std::vector<std::string> plan_points(const std::string& file) {
  test::TempDir dir;
  const auto r =
      test::simrun(test::source_dir() + "/tests/validation/gpu/" + file + " --plan", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  for (size_t at = r.out.find("\npoint "); at != std::string::npos;) {
    const size_t next = r.out.find("\npoint ", at + 1);
    out.push_back(r.out.substr(at + 1, next == std::string::npos ? next : next - at - 1));
    at = next;
  }
  return out;
}

// From the plans (no simulation): the sdpa_flash points run FA-2, the sdpa_cudnn ones FA-3.
TEST_CASE("GPU FlashAttention runs the kernel each measurement ran", "[validation][gpu]") {
  const auto h100 = plan_points("attention_h100.yaml");
  CHECK(h100.size() == 8);
  for (const auto& p : h100) {
    INFO(p);
    const bool fa2 = p.find("force_fa2=true") != std::string::npos;
    CHECK(p.find(fa2 ? "FlashAttention fa2" : "FlashAttention fa3") != std::string::npos);
  }
  const auto a100 = plan_points("attention_a100.yaml");
  REQUIRE(a100.size() == 1);
  CHECK(a100[0].find("FlashAttention fa2") != std::string::npos);
  for (const char* file : {"attention_seq_h100.yaml", "attention_d64_h100.yaml"}) {
    const auto more = plan_points(file);
    CHECK(more.size() == (std::string(file) == "attention_seq_h100.yaml" ? 16U : 4U));
    for (const auto& p : more) {
      INFO(file << ": " << p);
      const bool fa2 = p.find("force_fa2=true") != std::string::npos;
      CHECK(p.find(fa2 ? "FlashAttention fa2" : "FlashAttention fa3") != std::string::npos);
    }
  }
  for (const char* file : {"attention_azure_h100.yaml", "attention_gpu_travel_a100.yaml"}) {
    const auto fast = plan_points(file);
    CHECK(fast.size() == (std::string(file) == "attention_azure_h100.yaml" ? 1U : 12U));
    for (const auto& p : fast) {
      INFO(file << ": " << p);
      CHECK(p.find("FlashAttention fa2") != std::string::npos);
      CHECK(p.find("fast-math") != std::string::npos);
    }
  }
}

// After the power-limited SM clock: 10.8%, still missed (models/gpu_sm/README.md). First run:
// mean |error| 29.1% over 9 points, the bound missed: H100 FA-2 +26 ..
// +48%, FA-3 +5 .. +56%, A100 FA-2 -5.3%. Causes measured on the lent H100 (models/gpu_sm/README.md
// "Simulated vs measured"): the SM clock under the attention kernels (median 1755 MHz FA-2,
// 1530 MHz cuDNN flash vs the preset's 1830) and mma.sync's sustained rate on sm_90 (2/3 of the
// wgmma rate the preset gives both); neither is in the presets yet.
TEST_CASE("GPU FlashAttention mean absolute error is within 10%", "[validation][gpu][!mayfail]") {
  double sum = 0;
  for (const auto& p : table()) sum += std::abs(p.error());
  const auto n = static_cast<double>(table().size());
  INFO("mean |error| " << 100 * sum / n << "% over " << table().size() << " points");
  CHECK(sum / n <= 0.10);
}

/// FA-3 forward on an H100 from TritonBench (pytorch/benchmark pull request 2391, commit ff65cb6,
/// its test plan; FACTS.md §C.3): Tri Dao's flash_v3, non-causal, head_dim 128, 16 heads, batch x
/// seq = 16k tokens; TFLOP/s by seq.
const std::map<std::int64_t, double> kTritonBenchFa3 = {{512, 430.32},   {1024, 517.099},
                                                        {2048, 565.544}, {4096, 590.233},
                                                        {8192, 614.234}, {16384, 620.73}};

/// FA-2 forward on an A100 from liangan1/GPU_travel performance/flash-attn/README.md (commit
/// 07d0469, second table): 32 query heads, head_dim 128; {causal, batch, seq_q, seq_kv, kv heads,
/// TFLOP/s, ms}. Its FLOPs (TFLOP/s x ms) count the keys each query sees: with seq_q < seq_kv
/// the bottom-right mask leaves 7/8 of 1024 x 4096 visible, not half.
struct GpuTravelRow {
  bool causal;
  std::int64_t b, sq, skv, hkv;
  double tflops, ms;
};
const std::vector<GpuTravelRow> kGpuTravel = {
    {true, 16, 1024, 1024, 32, 143.70, 0.956},  {true, 16, 1024, 1024, 8, 140.59, 0.978},
    {true, 4, 1024, 4096, 32, 171.0, 1.401},    {true, 4, 1024, 4096, 8, 174.7, 1.377},
    {true, 1, 4096, 4096, 32, 156.27, 0.879},   {true, 1, 4096, 4096, 8, 159.41, 0.862},
    {false, 16, 1024, 1024, 32, 179.11, 1.535}, {false, 16, 1024, 1024, 8, 179.48, 1.532},
    {false, 4, 1024, 4096, 32, 179.89, 1.528},  {false, 4, 1024, 4096, 8, 182.60, 1.505},
    {false, 1, 4096, 4096, 32, 184.04, 1.494},  {false, 1, 4096, 4096, 8, 183.63, 1.497}};

/// Our H100 rows of an experiment: each simulated point against the `sdpa_flash` / `sdpa_cudnn`
/// measurement of its shape, and the FA-3 non-causal head_dim 128 ones also against TritonBench.
void add_ours(std::vector<Point>& out, const std::vector<Point>& sim) {
  for (Point p : sim) {
    p.measured_as =
        std::string(p.kernel == "fa2" ? "sdpa_flash" : "sdpa_cudnn") + (p.causal ? "_causal" : "");
    p.measured_tflops = measured(p.measured_as, p.shape());
    out.push_back(p);
    if (p.kernel == "fa3" && !p.causal && p.d == 128 && p.h == 16 && p.b * p.s == 16384) {
      p.measured_as = "TritonBench flash_v3";
      p.measured_tflops = kTritonBenchFa3.at(p.s);
      out.push_back(p);
    }
  }
}

// Issue 11 item 5: FlashAttention forward at every measured and published sequence length
// (README.md beside this file, "FlashAttention at every measured and published sequence length":
// the sources, and the bound, written before the first simulation): 48 rows, mean |error| <= 10%.
// MISSED on the first run: 12.0% (ours 13.7% over 28 rows, TritonBench's FA-3 19.2% over 6,
// Azure's H100 FA-2 +19.5%; the A100 rows 4.2% over GPU_travel's 12 and -7.9% on Azure's). The
// device's FA-3 main loop runs at 94% of the tensor peak per clock where cuDNN's kernel runs at
// 72% (at its measured clock), and cuDNN's causal kernel loses a further 20% per clock; neither
// is modelled yet (README.md). Reported, not failing the suite; never widened. With the SM
// array's cycles at the exact clock period (README, "The SM array at the exact clock period"):
// 11.8%, still missed.
TEST_CASE("GPU FlashAttention at every measured and published sequence length",
          "[validation][gpu][!mayfail]") {
  std::vector<Point> rows;
  for (const Point& p : table())  // seq 512 and 2048 (ours) and Azure's A100 point
    if (p.gpu == "H100 SXM")
      add_ours(rows, {p});
    else
      rows.push_back(p);
  add_ours(rows, simulate("H100 SXM", "attention_seq_h100.yaml"));
  add_ours(rows, simulate("H100 SXM", "attention_d64_h100.yaml"));
  for (Point p : simulate("H100 SXM", "attention_azure_h100.yaml")) {
    // yosoyjay/AI-benchmarking-guide (a fork of Azure/AI-benchmarking-guide),
    // Azure_Results/ND_H100_v5_results.md: FA-2, b2 h16 s8192 d128, 327.9 TFLOP/s.
    p.measured_as = "Azure ND H100 v5";
    p.measured_tflops = 327.9;
    rows.push_back(p);
  }
  for (Point p : simulate("A100 SXM4 80GB", "attention_gpu_travel_a100.yaml")) {
    p.measured_as = "GPU_travel";
    for (const auto& g : kGpuTravel)
      if (g.causal == p.causal && g.b == p.b && g.sq == p.s && g.skv == p.skv && g.hkv == p.hkv) {
        // The simulated time at the source's FLOP count (so the rows compare times).
        p.simulated_tflops *= g.tflops * g.ms * 1e9 / p.flops();
        p.measured_tflops = g.tflops;
      }
    INFO(p.shape() << " kv " << p.hkv << "/" << p.skv);
    REQUIRE(p.measured_tflops > 0);
    rows.push_back(p);
  }
  std::map<std::string, std::pair<double, int>> by_source;
  double sum = 0;
  std::cout << "\nGPU FlashAttention at every sequence length (TFLOP/s)\n| GPU | kernel | shape "
               "| kv heads / keys | measured (as) | simulated | error |\n|---|---|---|---|---|---|"
               "---|\n";
  for (const auto& p : rows) {
    std::cout << fmt::format("| {} | {}{} | {} | {} / {} | {:.1f} ({}) | {:.1f} | {:+.1f}% |\n",
                             p.gpu, p.kernel, p.causal ? " causal" : "", p.shape(), p.hkv, p.skv,
                             p.measured_tflops, p.measured_as, p.simulated_tflops, 100 * p.error());
    sum += std::abs(p.error());
    const std::string source = p.measured_as.rfind("sdpa_", 0) == 0 ? "ours" : p.measured_as;
    by_source[source].first += std::abs(p.error());
    ++by_source[source].second;
  }
  for (const auto& [source, e] : by_source)
    std::cout << fmt::format("mean |error| {}: {:.1f}% over {} rows\n", source,
                             100 * e.first / e.second, e.second);
  const auto n = static_cast<double>(rows.size());
  std::cout << fmt::format("mean |error|: {:.1f}% over {} rows\n", 100 * sum / n, rows.size());
  CHECK(rows.size() == 48);
  CHECK(sum / n <= 0.10);
}

}  // namespace
}  // namespace systole
