// GEMM validation of the GPU device (issue 11, item 5): every point runs through `simrun` on the
// SystemC device (SMs' tile-level main loops, L2 with tags, bank-level HBM) and is compared with
// a measurement: our H100 SXM / H200 runs (data/, README.md beside this file: how measured) and
// the published A100 SXM4 80GB cuBLASLt figures. Bounds, fixed before this table was first run
// (the targets): every GEMM with M, N, K >= 2048 within 5%, and the mean |error| of the
// whole table within 10%; the held-out H200's points, whose preset was built from datasheets
// before they were compared, within 10% on average on their own. Misses are reported in the
// README's table with their causes, not hidden by a wider bound. First run (README.md beside this
// file, "GEMMs through the device"): mean |error| 11.9% over 19 points, 7 of the 10 large GEMMs
// outside 5%, the H200 mean 15.2%: all three checks miss, so the case is [!mayfail] (reported,
// not failing the suite) until the causes listed there are modelled. Since then (README, "Mapping
// error against device error"): a second view runs each H100/H200 point with the kernel cuBLAS
// ran (its name decoded by gpu_kernel_name.h), and the tile search and a power-limited clock
// changed the table; the bounds did not change. 2026-11-28 (cp.async fills on the shared-memory
// banks, README "cp.async fills take the shared-memory banks"): the mean is 9.4% (met); the
// per-row 5% check still misses (H100 2048^3 -9.4%, 4096^3 -9.8%, 2048x2048x13312 +16.4%;
// A100 2048^3 +5.8%, 4096^3 +11.5%), so the case stays [!mayfail]. With the SM array's cycles
// at the exact clock period (README, "The SM array at the exact clock period"): 9.1% (met); the
// same five rows miss 5% (-9.4%, -10.0%, +16.5%, +5.7%, +10.9%).

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"
#include "tests/validation/gpu/gpu_kernel_name.h"
#include "tests/validation/gpu/gpu_measurements.h"

namespace systole {
namespace {

struct Point {
  std::string gpu, dtype;
  std::int64_t m = 0, n = 0, k = 0;
  double measured_tflops = 0, simulated_tflops = 0;
  bool held_out = false;
  double error() const { return simulated_tflops / measured_tflops - 1; }
  bool large() const { return m >= 2048 && n >= 2048 && k >= 2048; }
  std::string shape() const { return fmt::format("{}x{}x{}", m, n, k); }
};

/// Simulated TFLOP/s of every point of the experiment at `path` (one GEMM layer per point).
std::map<std::string, double> simulate_path(const std::string& path) {
  test::TempDir dir;
  // Two points at a time (the development VM's two cores); SYSTOLE_SIM_JOBS on a larger host.
  const char* jobs = std::getenv("SYSTOLE_SIM_JOBS");
  const auto r = test::simrun(path + " -o out.h5 -q -j " + (jobs ? jobs : "2"), dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, double> out;
  for (const auto& p : stats::read_points(dir.file("out.h5"))) {
    REQUIRE(p.ok());
    const auto& l = p.layers;
    REQUIRE(l.rows().size() == 1);
    const double macs = l.get_number(0, "macs"), seconds = l.get_number(0, "time");
    std::string shape = l.get_string(0, "shape");
    out[shape] = 2 * macs / seconds / 1e12;
  }
  return out;
}

std::map<std::string, double> simulate(const std::string& file) {
  return simulate_path(test::source_dir() + "/tests/validation/gpu/" + file);
}

/// Mean measured TFLOP/s of a torch row over the runs that have it.
double measured(const std::vector<std::string>& runs, const std::string& name,
                const std::string& dtype, const std::string& shape) {
  double sum = 0;
  int n = 0;
  for (const auto& run : runs)
    for (const auto& row : test::gpu::load_rows(run))
      if (row.group == "gemm" && row.name == name && row.dtype == dtype && row.shape == shape) {
        sum += row.tflops;
        ++n;
      }
  REQUIRE(n > 0);
  return sum / n;
}

void add_points(std::vector<Point>& pts, const std::string& gpu, const std::string& file,
                const std::vector<std::string>& runs, const std::string& name,
                const std::string& dtype, bool held_out) {
  for (const auto& [shape, tf] : simulate(file)) {
    Point p;
    p.gpu = gpu;
    p.dtype = dtype;
    REQUIRE(std::sscanf(shape.c_str(), "%ldx%ldx%ld", &p.m, &p.n, &p.k) == 3);
    p.simulated_tflops = tf;
    p.measured_tflops = measured(runs, name, dtype, shape);
    p.held_out = held_out;
    pts.push_back(p);
  }
}

/// A100 SXM4 80GB, cuBLASLt FP16, random data: Azure/AI-benchmarking-guide, ND A100 v4
/// results (Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md, GEMM table).
const std::map<std::string, double>& a100_measured() {
  static const std::map<std::string, double> m = {{"1024x1024x1024", 119.4},
                                                  {"2048x2048x2048", 221.8},
                                                  {"4096x4096x4096", 228.0},
                                                  {"1024x2145x1024", 132.8},
                                                  {"802816x192x768", 157.8}};
  return m;
}

const std::vector<Point>& table() {
  static const std::vector<Point> pts = [] {
    std::vector<Point> out;
    add_points(out, "H100 SXM", "gemm_h100.yaml", {"h100_run1", "h100_run2"}, "mm", "bf16", false);
    add_points(out, "H100 SXM", "gemm_h100_fp8.yaml", {"h100_run1"}, "scaled_mm", "fp8e4m3", false);
    add_points(out, "H200", "gemm_h200.yaml", {"h200_run1"}, "mm", "bf16", true);
    for (const auto& [shape, tf] : simulate("gemm_a100.yaml")) {
      Point p;
      p.gpu = "A100 SXM4 80GB";
      p.dtype = "fp16";
      REQUIRE(std::sscanf(shape.c_str(), "%ldx%ldx%ld", &p.m, &p.n, &p.k) == 3);
      p.simulated_tflops = tf;
      p.measured_tflops = a100_measured().at(shape);
      out.push_back(p);
    }
    std::cout << "\nGPU GEMM validation (TFLOP/s)\n| GPU | dtype | GEMM | measured | simulated | "
                 "error |\n|---|---|---|---|---|---|\n";
    for (const auto& p : out)
      std::cout << fmt::format("| {}{} | {} | {} | {:.1f} | {:.1f} | {:+.1f}% |\n", p.gpu,
                               p.held_out ? " (held out)" : "", p.dtype, p.shape(),
                               p.measured_tflops, p.simulated_tflops, 100 * p.error());
    return out;
  }();
  return pts;
}

/// The cuBLAS kernel a torch row ran (the first run that names one).
std::optional<test::gpu::CublasKernel> measured_kernel(const std::vector<std::string>& runs,
                                                       const std::string& name,
                                                       const std::string& dtype,
                                                       const std::string& shape) {
  for (const auto& run : runs)
    for (const auto& row : test::gpu::load_rows(run))
      if (row.group == "gemm" && row.name == name && row.dtype == dtype && row.shape == shape)
        if (auto k = test::gpu::parse_cublas_kernel(row.kernels)) return k;
  return std::nullopt;
}

/// One point of the "cuBLAS's kernel" view: the device told to run the kernel cuBLAS ran.
struct KernelPoint {
  Point point;
  std::string kernel;                             ///< the nvjet name
  std::optional<test::gpu::DeviceKernel> device;  ///< what the device ran (none: not run)
};

/// The points of one GPU's experiment re-run with each point's cuBLAS kernel (tile, consumer
/// warpgroups, stages: system.mapping.tile_m/tile_n/warps_m/warps_n/stages).
void add_kernel_points(std::vector<KernelPoint>& pts, const std::string& gpu,
                       const std::string& preset, const std::string& dtype_key,
                       const std::vector<std::string>& runs, const std::string& name,
                       const std::string& dtype, const std::vector<std::string>& shapes,
                       bool held_out) {
  std::vector<KernelPoint> mine;
  for (const auto& shape : shapes) {
    KernelPoint kp;
    kp.point.gpu = gpu;
    kp.point.dtype = dtype;
    kp.point.held_out = held_out;
    REQUIRE(std::sscanf(shape.c_str(), "%ldx%ldx%ld", &kp.point.m, &kp.point.n, &kp.point.k) == 3);
    kp.point.measured_tflops = measured(runs, name, dtype, shape);
    const auto k = measured_kernel(runs, name, dtype, shape);
    kp.kernel = k ? k->name : "(no nvjet kernel named)";
    if (k) kp.device = test::gpu::device_kernel(*k);
    mine.push_back(kp);
  }
  // One sweep over the points that have a kernel: "[v1, v2, ...]" of one field each.
  auto list = [&](auto get) {
    std::string s;
    for (const auto& kp : mine)
      if (kp.device) s += (s.empty() ? "" : ", ") + std::to_string(get(kp));
    return "[" + s + "]";
  };
  const bool any = std::any_of(mine.begin(), mine.end(), [](const auto& kp) { return kp.device; });
  if (!any) {
    pts.insert(pts.end(), mine.begin(), mine.end());
    return;
  }
  test::TempDir dir;
  const std::string yaml = dir.file("kernels.yaml");
  std::ofstream f(yaml);
  f << "name: gpu-gemm-cublas-kernels\nbase: " << test::source_dir() << "/configs/presets/"
    << preset
    << "\nsystem: {warmup: 1}\nworkload:\n  name: gemm\n  params: {m: 1024, n: 1024, k: 1024}\n"
    << "  layers:\n    - {name: gemm, m: m, n: n, k: k" << dtype_key << "}\nsweep:\n  zip:\n"
    << "    - workload.params.m: " << list([](const KernelPoint& p) { return p.point.m; })
    << "\n      workload.params.n: " << list([](const KernelPoint& p) { return p.point.n; })
    << "\n      workload.params.k: " << list([](const KernelPoint& p) { return p.point.k; })
    << "\n      system.mapping.tile_m: "
    << list([](const KernelPoint& p) { return p.device->tile_m; })
    << "\n      system.mapping.tile_n: "
    << list([](const KernelPoint& p) { return p.device->tile_n; })
    << "\n      system.mapping.warps_m: "
    << list([](const KernelPoint& p) { return p.device->warps_m; })
    << "\n      system.mapping.warps_n: "
    << list([](const KernelPoint& p) { return p.device->warps_n; })
    << "\n      system.mapping.stages: "
    << list([](const KernelPoint& p) { return p.device->stages; }) << "\n";
  f.close();
  const auto sim = simulate_path(yaml);
  for (auto& kp : mine)
    if (kp.device) kp.point.simulated_tflops = sim.at(kp.point.shape());
  pts.insert(pts.end(), mine.begin(), mine.end());
}

/// The three checks' sums over a table (held-out points apart).
struct Summary {
  double sum = 0, held_sum = 0;
  int n = 0, held_n = 0, large_n = 0, large_out = 0;
  void add(const Point& p) {
    if (p.held_out) {
      held_sum += std::abs(p.error());
      ++held_n;
      return;
    }
    sum += std::abs(p.error());
    ++n;
    if (p.large()) {
      ++large_n;
      if (std::abs(p.error()) > 0.05) ++large_out;
    }
  }
};

/// The "MxNxK" shapes an experiment file sweeps (its zip of workload.params.m, n and k).
std::vector<std::string> sweep_shapes(const std::string& file) {
  std::ifstream in(test::source_dir() + "/tests/validation/gpu/" + file);
  std::map<char, std::vector<std::string>> lists;
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("workload.params.");
    const auto open = line.find('['), close = line.find(']');
    if (at == std::string::npos || open == std::string::npos || close == std::string::npos)
      continue;
    std::stringstream items(line.substr(open + 1, close - open - 1));
    for (std::string v; std::getline(items, v, ',');)
      lists[line[at + 16]].push_back(std::to_string(std::stol(v)));
  }
  REQUIRE(lists['m'].size() == lists['n'].size());
  REQUIRE(lists['m'].size() == lists['k'].size());
  std::vector<std::string> out;
  for (size_t i = 0; i < lists['m'].size(); ++i)
    out.push_back(lists['m'][i] + "x" + lists['n'][i] + "x" + lists['k'][i]);
  return out;
}

// One test case (ctest runs each case in its own process: three would simulate the table
// three times), three checks.
TEST_CASE("GPU GEMMs through the device against measured hardware", "[validation][gpu][!mayfail]") {
  Summary s;
  for (const auto& p : table()) {
    s.add(p);
    if (p.held_out || !p.large()) continue;
    INFO(p.gpu << " " << p.dtype << " " << p.shape() << ": measured " << p.measured_tflops
               << " TF/s, simulated " << p.simulated_tflops);
    CHECK(std::abs(p.error()) <= 0.05);  // GEMMs of 2048^3 and larger within 5%
  }
  REQUIRE(s.n > 0);
  REQUIRE(s.held_n > 0);
  INFO("mean |error| " << 100 * s.sum / s.n << "% over " << s.n << " points");
  CHECK(s.sum / s.n <= 0.10);
  INFO("held-out H200: mean |error| " << 100 * s.held_sum / s.held_n << "% over " << s.held_n
                                      << " points");
  CHECK(s.held_sum / s.held_n <= 0.10);
}

// The same points with the kernel cuBLAS ran (README "cuBLAS's kernel"): separates the tile
// search's error from the device's (the main case prints the tile search's). Hidden (a second
// set of simulations, ~as long as the main case): run it with
// validation_tests "[cublas_kernel]". The A100 points have no kernel names (published figures).
TEST_CASE("GPU GEMMs through the device with cuBLAS's kernel against measured hardware",
          "[.][cublas_kernel][validation][gpu][!mayfail]") {
  std::vector<KernelPoint> pts;
  add_kernel_points(pts, "H100 SXM", "h100_sxm5.yaml", "", {"h100_run1", "h100_run2"}, "mm", "bf16",
                    sweep_shapes("gemm_h100.yaml"), false);
  add_kernel_points(pts, "H100 SXM", "h100_sxm5.yaml", ", dtype: fp8_e4m3", {"h100_run1"},
                    "scaled_mm", "fp8e4m3", sweep_shapes("gemm_h100_fp8.yaml"), false);
  add_kernel_points(pts, "H200", "h200_sxm.yaml", "", {"h200_run1"}, "mm", "bf16",
                    sweep_shapes("gemm_h200.yaml"), true);
  std::cout
      << "\nGPU GEMM validation with cuBLAS's kernel (TFLOP/s)\n| GPU | dtype | GEMM | cuBLAS "
         "kernel | device ran | measured | simulated | error |\n|---|---|---|---|---|---|---|"
         "---|\n";
  Summary s;
  for (const auto& kp : pts) {
    const Point& p = kp.point;
    const bool ran = p.simulated_tflops > 0;
    std::cout << fmt::format("| {}{} | {} | {} | `{}` | {} | {:.1f} | {} | {} |\n", p.gpu,
                             p.held_out ? " (held out)" : "", p.dtype, p.shape(), kp.kernel,
                             kp.device ? kp.device->text() : "not run", p.measured_tflops,
                             ran ? fmt::format("{:.1f}", p.simulated_tflops) : "-",
                             ran ? fmt::format("{:+.1f}%", 100 * p.error()) : "-");
    if (ran) s.add(p);
  }
  REQUIRE(s.n > 0);
  REQUIRE(s.held_n > 0);
  std::cout << fmt::format(
      "cuBLAS's kernel: mean |error| {:.1f}% over {} H100 points, {} of {} large outside 5%; "
      "H200 mean {:.1f}% over {}\n",
      100 * s.sum / s.n, s.n, s.large_out, s.large_n, 100 * s.held_sum / s.held_n, s.held_n);
  CHECK(s.large_out == 0);
  CHECK(s.sum / s.n <= 0.10);
  CHECK(s.held_sum / s.held_n <= 0.10);
}

// The decoder on names from data/ (and on what it must refuse).
TEST_CASE("cuBLAS kernel names decode into the device's CTA configuration", "[validation][gpu]") {
  using test::gpu::device_kernel;
  using test::gpu::parse_cublas_kernel;
  const auto a =
      parse_cublas_kernel("Memset (Device) | nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  REQUIRE(a);
  CHECK(a->t1 == 320);
  CHECK(a->t2 == 128);
  CHECK(a->bk == 64);
  CHECK(a->stages == 3);
  CHECK(a->c1 == 1);
  CHECK(a->c2 == 2);
  CHECK(a->cooperative);
  CHECK_FALSE(a->split_k);
  const auto da = device_kernel(*a);  // torch M x N = 128 x 320; 2 x 160 columns per warpgroup
  REQUIRE(da);
  CHECK(da->text() == "128x320/3 wg1x2");
  const auto b = parse_cublas_kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  REQUIRE(b);
  CHECK(device_kernel(*b)->text() == "128x256/4 wg2x1");
  const auto c = parse_cublas_kernel("nvjet_sm90_tst_192x96_64x5_1x2_h_bz_NNT");  // transposed
  REQUIRE(c);
  CHECK_FALSE(c->cooperative);
  CHECK(device_kernel(*c)->text() == "192x96/5 wg1x1");
  const auto sk = parse_cublas_kernel(
      "nvjet_sm90_tst_192x16_64x8_2x1_v_bz_splitK_NNT | void cublasLt::splitKreduce_kernel");
  REQUIRE(sk);
  CHECK(sk->split_k);
  CHECK_FALSE(parse_cublas_kernel(
      "Memset (Device) | void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_"
      "align1>"));
  CHECK_FALSE(parse_cublas_kernel(""));
  CHECK_FALSE(parse_cublas_kernel("nvjet_sm90_tst_256_64x4_1x2_h_bz_NNT"));
}

/// Azure's cuBLASLt FP8 table (Azure/AI-benchmarking-guide "Azure Results/NDv5 Results.md",
/// commit 0126c30): TFLOPS as superbench's cublaslt_gemm prints them, m x n x (2k - 1) / time.
struct AzureFp8 {
  const char* shape;
  double h200, h100;
};
const std::vector<AzureFp8> kAzureFp8 = {
    {"1024x1024x1024", 290.8, 274.1},    {"2048x2048x2048", 1013.4, 1011.3},
    {"4096x4096x4096", 1249.1, 1216.9},  {"8192x8192x8192", 1300.6, 1290.1},
    {"1024x2145x1024", 407.9, 410.7},    {"802816x192x768", 717.5, 663.8},
    {"6144x12288x12288", 1318.0, 1351.4}};

// Held out (README.md beside this file, "Held out: Azure's FP8 cuBLASLt GEMMs on H100 and H200"):
// bounds written before these were simulated, the targets as the case above applies them
// (per GPU: mean |error| <= 10%; every GEMM with M, N, K >= 2048 within 5%). MISSED on the first
// run (mean 25.1% H100, 22.6% H200): the two small GEMMs +51% to +66% (7.4-11.0 us a call in
// Azure's eager loop, about the same on both GPUs), the large ones 6-15% fast at the model's clock,
// and H100 6144x12288x12288 -11.8% is the device's 128x128 FP8 tiles without TMA multicast
// (README.md). Reported, not failing the suite, until those are modelled; never widened.
TEST_CASE("GPU FP8 GEMMs through the device against Azure's cuBLASLt table (held out)",
          "[validation][gpu][!mayfail]") {
  for (const bool h200 : {false, true}) {
    const auto sim = simulate(h200 ? "azure_fp8_h200.yaml" : "azure_fp8_h100.yaml");
    const char* gpu = h200 ? "H200" : "H100 SXM";
    std::cout << fmt::format(
        "\nAzure FP8 cuBLASLt on {} (TFLOP/s, 2mnk / time)\n| GEMM | measured "
        "| simulated | error |\n|---|---|---|---|\n",
        gpu);
    double sum = 0;
    int n = 0;
    for (const auto& a : kAzureFp8) {
      Point p;
      p.gpu = gpu;
      p.dtype = "fp8e4m3";
      REQUIRE(std::sscanf(a.shape, "%ldx%ldx%ld", &p.m, &p.n, &p.k) == 3);
      REQUIRE(sim.count(a.shape) == 1);
      p.simulated_tflops = sim.at(a.shape);
      // Superbench's TFLOPS count m x n x (2k - 1) operations: its time, as 2mnk operations.
      p.measured_tflops = (h200 ? a.h200 : a.h100) * 2.0 * p.k / (2.0 * p.k - 1);
      std::cout << fmt::format("| {} | {:.1f} | {:.1f} | {:+.1f}% |\n", p.shape(),
                               p.measured_tflops, p.simulated_tflops, 100 * p.error());
      sum += std::abs(p.error());
      ++n;
      if (!p.large()) continue;
      INFO(gpu << " " << p.shape() << ": measured " << p.measured_tflops << " TF/s, simulated "
               << p.simulated_tflops);
      CHECK(std::abs(p.error()) <= 0.05);
    }
    std::cout << fmt::format("{} mean |error| {:.1f}% over {} GEMMs (target <= 10%)\n", gpu,
                             100 * sum / n, n);
    INFO(gpu << ": mean |error| " << 100 * sum / n << "%");
    CHECK(sum / n <= 0.10);
  }
}

}  // namespace
}  // namespace systole
