// Held-out validation of the GPU device (issue 11: "the same accuracy is checked on measurements
// you have not seen"): 40 shapes drawn at random (measure/heldout_draw.py, seed 20261126) and
// committed with these bounds before any was measured or simulated, measured on a lent H100 SXM
// and H200 (data/<gpu>_heldout_run1.csv, two passes each; README.md beside this file, "Held-out
// random shapes") and simulated through simrun on the SystemC device (heldout_<kind>_<gpu>.yaml,
// written from the same CSV by measure/heldout_configs.py). The compared quantity is the kernel
// time in a CUDA graph (launch gap included, no host overhead), the mean of the passes.
// Bounds, fixed before measuring: per GPU, mean |error| <= 10% over all its rows; every GEMM with
// M, N, K >= 2048 within 5% (none was drawn). First run: missed (README.md); the case is
// [!mayfail], reported, not failing the suite, and its bound is never widened.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"
#include "tests/validation/gpu/gpu_kernel_name.h"
#include "tests/validation/gpu/gpu_measurements.h"
#include "tests/validation/gpu/gpu_simulated.h"

namespace systole {
namespace {

const std::vector<std::string> kKinds = {"gemm", "gemm_fp8", "attention", "conv"};
/// The GPUs every draw was measured on (data/<gpu>_<prefix>_run1.csv).
const std::vector<std::string> kGpus = {"h100", "h200"};

/// One draw of held-out shapes: its file prefix ("heldout": draw 1, seed 20261126; "heldout<n>":
/// draw n, seed 20261125 + n, drawn by the same rules; measure/heldout_draw.py says when).
struct Draw {
  Draw(std::string p, std::string t, std::string o = "")
      : prefix(std::move(p)), title(std::move(t)), options(std::move(o)) {}
  std::string prefix, title;
  std::string options;  ///< simrun's extra options
};

/// kind -> the shapes of measure/<prefix>_shapes.csv, in the file's order.
std::map<std::string, std::vector<std::string>> drawn_shapes(const Draw& draw) {
  std::ifstream in(test::source_dir() + "/tests/validation/gpu/measure/" + draw.prefix +
                   "_shapes.csv");
  REQUIRE(in);
  std::map<std::string, std::vector<std::string>> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto a = line.find(','), b = line.rfind(',');
    if (a != std::string::npos && b > a) out[line.substr(0, a)].push_back(line.substr(b + 1));
  }
  return out;
}

/// The measured shape name of a simulated point, rebuilt from its swept values.
std::string shape_of(const std::string& kind, const test::gpu::SimulatedPoint& p) {
  std::map<std::string, std::string> v;
  for (const auto& [path, value] : p.assignments) v[path.substr(path.rfind('.') + 1)] = value;
  if (kind.rfind("gemm", 0) == 0) return fmt::format("{}x{}x{}", v["m"], v["n"], v["k"]);
  if (kind == "attention")
    return fmt::format("b{}_h{}_s{}_d{}_c{}", v["b"], v["h"], v["s"], v["d"],
                       v["causal"] == "true" ? 1 : 0);
  return fmt::format("n{}_c{}_k{}_hw{}_r{}_s{}", v["n"], v["c"], v["k"], v["hw"], v["r"], v["st"]);
}

struct Row {
  std::string kind, shape;
  double measured = 0, eager = 0, simulated = 0;  // seconds
  /// Error of the simulated rate (as the other tables): measured time / simulated time - 1.
  double error() const { return measured / simulated - 1; }
};

/// Every held-out shape of one draw and GPU, measured (mean of the passes) and simulated.
std::vector<Row> table(const Draw& draw, const std::string& gpu) {
  std::map<std::string, std::pair<double, double>> sum;  // kind/shape -> graph, eager
  std::map<std::string, int> n;
  for (const auto& r : test::gpu::load_heldout_rows(gpu + "_" + draw.prefix + "_run1")) {
    sum[r.kind + "/" + r.shape].first += r.graph_seconds;
    sum[r.kind + "/" + r.shape].second += r.eager_seconds;
    ++n[r.kind + "/" + r.shape];
  }
  const auto drawn = drawn_shapes(draw);
  std::vector<Row> out;
  for (const auto& kind : kKinds) {
    const auto points =
        test::gpu::simulate_points(draw.prefix + "_" + kind + "_" + gpu + ".yaml", draw.options);
    std::set<std::string> seen;
    for (const auto& p : points) {
      Row r{kind, shape_of(kind, p)};
      INFO(gpu << " " << kind << " " << r.shape);
      REQUIRE(seen.insert(r.shape).second);  // each shape simulated once
      const auto key = kind + "/" + r.shape;
      REQUIRE(n[key] > 0);  // and measured
      r.measured = sum[key].first / n[key];
      r.eager = sum[key].second / n[key];
      r.simulated = p.whole;
      out.push_back(r);
    }
    CHECK(seen.size() == drawn.at(kind).size());  // every drawn shape is in the experiment
  }
  return out;
}

void print(const std::string& title, const std::vector<Row>& rows) {
  std::cout << "\n"
            << title
            << "\n| kind | shape | measured us (graph) | eager us | simulated us | error |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    std::cout << fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.2f} | {:+.1f}% |\n", r.kind, r.shape,
                             1e6 * r.measured, 1e6 * r.eager, 1e6 * r.simulated, 100 * r.error());
  for (const auto& kind : kKinds) {
    double s = 0;
    int k = 0;
    for (const auto& r : rows)
      if (r.kind == kind) s += std::abs(r.error()), ++k;
    std::cout << fmt::format("{}: mean |error| {:.1f}% over {}\n", kind, 100 * s / k, k);
  }
}

/// The bounds, fixed before measuring: per GPU mean |error| <= 10%; M, N, K >= 2048 GEMMs 5%.
void check_draw(const Draw& draw) {
  for (const auto& gpu : kGpus) {
    const std::string title = gpu == "h100" ? "H100 SXM5" : "H200 SXM";
    const auto rows = table(draw, gpu);
    print(draw.title + ", " + title, rows);
    double sum = 0;
    for (const auto& r : rows) {
      sum += std::abs(r.error());
      int m = 0, n = 0, k = 0;
      if (r.kind.rfind("gemm", 0) == 0 &&
          std::sscanf(r.shape.c_str(), "%dx%dx%d", &m, &n, &k) == 3 && m >= 2048 && n >= 2048 &&
          k >= 2048) {
        INFO(title << " " << r.shape);
        CHECK(std::abs(r.error()) <= 0.05);
      }
    }
    const double mean = sum / static_cast<double>(rows.size());
    std::cout << fmt::format("{}, {}: mean |error| {:.1f}% over {} held-out shapes (bound 10%)\n",
                             draw.title, title, 100 * mean, rows.size());
    INFO(title << " mean |error| " << 100 * mean << "%");
    CHECK(mean <= 0.10);
  }
}

/// The measured rows of every draw on `gpu` (the diagnostics below cover all three).
std::vector<test::gpu::HeldoutRow> all_draws(const std::string& gpu) {
  std::vector<test::gpu::HeldoutRow> out;
  for (const char* draw : {"_heldout_run1", "_heldout2_run1", "_heldout3_run1"})
    for (auto& r : test::gpu::load_heldout_rows(gpu + draw)) out.push_back(std::move(r));
  return out;
}

TEST_CASE("GPU device on held-out random shapes against measured hardware",
          "[validation][gpu][!mayfail]") {
  check_draw({"heldout", "Held-out shapes (draw 1)"});
}

// Draw 2 (measure/heldout2_shapes.csv, seed 20261127): the same rules, committed with the same
// bounds before any of its shapes was measured or simulated, after draw 1 had been used to find
// mechanisms (FA-2's softmax, cuDNN's tiles); so this is the check on shapes the model has not
// seen. Measured 2026-11-27 on a lent H100 SXM and H200 (data/<gpu>_heldout2_run1.csv).
TEST_CASE("GPU device on a second held-out draw against measured hardware",
          "[validation][gpu][!mayfail]") {
  check_draw({"heldout2", "Held-out shapes (draw 2)"});
}

// Draw 3 (measure/heldout3_shapes.csv, seed 20261128): drawn and committed after the model it
// tests (the library kernels' set-up, eba2601) and before any of its shapes was measured or
// simulated; measured 2026-11-27 on a lent H100 SXM and H200 (data/<gpu>_heldout3_run1.csv).
TEST_CASE("GPU device on a third held-out draw against measured hardware",
          "[validation][gpu][!mayfail]") {
  check_draw({"heldout3", "Held-out shapes (draw 3)"});
}

// Draw 4 (measure/heldout4_shapes.csv, seed 20261129): drawn and committed after the clock that
// settles from the simulation (a56396b, `system.warmup`) and before any of its shapes was measured
// or simulated, with the same bounds, to judge that change on shapes nobody had seen. Decided
// before measuring (fb09192): the validation experiments move from warmup 0 (the mapper
// estimate's clock, an empty L2) to warmup 1 (the settled clock, the L2 as the previous call left
// it) if warmup 1's mean |error| over draw 4 is lower on every GPU measured. Measured 2026-11-27
// on a lent H100 SXM and H200: warmup 0 17.5% / 12.5%, warmup 1 15.5% / 10.8%, so every
// experiment of this folder now runs warmup 1; the hidden case below keeps warmup 0's figures.
TEST_CASE("GPU device on a fourth held-out draw against measured hardware",
          "[validation][gpu][!mayfail]") {
  check_draw({"heldout4", "Held-out shapes (draw 4)"});
}

TEST_CASE("GPU device on held-out draws 4 and 5 with the estimate's clock (warmup 0)",
          "[.][validation][gpu][heldout_warmup]") {
  check_draw({"heldout4", "Held-out shapes (draw 4), warmup 0", "-p system.warmup=0"});
  check_draw({"heldout5", "Held-out shapes (draw 5), warmup 0", "-p system.warmup=0"});
}

// Draw 5 (measure/heldout5_shapes.csv, seed 20261130): drawn and committed with the same bounds
// after draw 4 moved every experiment here to warmup 1, before any of its shapes was measured or
// simulated, to judge whatever the model changes after that on shapes nobody has seen. Measured
// 2026-11-27 on a lent H200 and H100 SXM; first simulated with the model as draw 4 left it
// (warmup 1): H100 13.8%, H200 15.7% (warmup 0: 14.2% / 14.6%). Missed.
TEST_CASE("GPU device on a fifth held-out draw against measured hardware",
          "[validation][gpu][!mayfail]") {
  check_draw({"heldout5", "Held-out shapes (draw 5)"});
}

// Diagnostic (hidden, not a check of the bound): the bf16 GEMMs of every draw again with the kernel
// cuBLAS ran (its nvjet name decoded by gpu_kernel_name.h: tile, warpgroups, stages; cluster and
// split-K left to the device), so a row's error splits into the tile choice and the device's
// timing.
TEST_CASE("GPU held-out GEMMs with cuBLAS's kernel", "[.][cublas_kernel][validation][gpu]") {
  for (const std::string gpu : {"h100", "h200"}) {
    std::map<std::string, double> graph;
    std::map<std::string, int> n;
    std::map<std::string, test::gpu::DeviceKernel> kernel;
    std::map<std::string, std::string> name;
    for (const auto& r : all_draws(gpu)) {
      if (r.kind != "gemm") continue;
      graph[r.shape] += r.graph_seconds;
      ++n[r.shape];
      const auto k = test::gpu::parse_cublas_kernel(r.kernels);
      const auto d = k ? test::gpu::device_kernel(*k) : std::nullopt;
      if (d && !kernel.count(r.shape)) kernel[r.shape] = *d, name[r.shape] = k->name;
    }
    REQUIRE(!kernel.empty());
    std::string m, nn, k, tm, tn, wm, wn, st;
    auto add = [](std::string& list, auto v) {
      list += (list.empty() ? "" : ", ") + std::to_string(v);
    };
    for (const auto& [shape, d] : kernel) {
      long a = 0, b = 0, c = 0;
      REQUIRE(std::sscanf(shape.c_str(), "%ldx%ldx%ld", &a, &b, &c) == 3);
      add(m, a), add(nn, b), add(k, c);
      add(tm, d.tile_m), add(tn, d.tile_n), add(wm, d.warps_m), add(wn, d.warps_n);
      add(st, d.stages);
    }
    test::TempDir dir;
    std::ofstream f(dir.file("kernels.yaml"));
    f << "name: heldout-cublas-kernels\nbase: " << test::source_dir() << "/configs/presets/"
      << (gpu == "h100" ? "h100_sxm5" : "h200_sxm")
      << ".yaml\nsystem: {warmup: 1}\nworkload:\n  name: gemm\n"
      << "  params: {m: 1024, n: 1024, k: 1024}\n  layers:\n    - {name: gemm, m: m, n: n, k: k}\n"
      << "sweep:\n  zip:\n    - workload.params.m: [" << m << "]\n      workload.params.n: [" << nn
      << "]\n      workload.params.k: [" << k << "]\n      system.mapping.tile_m: [" << tm
      << "]\n      system.mapping.tile_n: [" << tn << "]\n      system.mapping.warps_m: [" << wm
      << "]\n      system.mapping.warps_n: [" << wn << "]\n      system.mapping.stages: [" << st
      << "]\n";
    f.close();
    const auto r = test::simrun("kernels.yaml -o out.h5 -q -j 2", dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::cout << "\nHeld-out GEMMs with cuBLAS's kernel, " << gpu
              << "\n| shape | cuBLAS kernel | device ran | measured us | simulated us | error |\n"
                 "|---|---|---|---|---|---|\n";
    double sum = 0;
    int count = 0;
    for (const auto& p : stats::read_points(dir.file("out.h5"))) {
      REQUIRE(p.ok());
      std::map<std::string, std::string> v;
      for (const auto& [path, value] : p.assignments) v[path.substr(path.rfind('.') + 1)] = value;
      const std::string shape = v["m"] + "x" + v["n"] + "x" + v["k"];
      const double meas = graph.at(shape) / n.at(shape), sim = p.layers.get_number(0, "time");
      const double err = meas / sim - 1;
      sum += std::abs(err);
      ++count;
      std::cout << fmt::format("| {} | `{}` | {} | {:.2f} | {:.2f} | {:+.1f}% |\n", shape,
                               name.at(shape), kernel.at(shape).text(), 1e6 * meas, 1e6 * sim,
                               100 * err);
    }
    std::cout << fmt::format("{}: mean |error| {:.1f}% over {} GEMMs with cuBLAS's kernel\n", gpu,
                             100 * sum / count, count);
  }
}

// Diagnostic (hidden, not a check of the bound): the convolutions of every draw that cuDNN ran as
// Hopper implicit-GEMM kernels, again with that kernel's tile, k-tile depth and consumer warpgroups
// (its sm90_xmma_fprop name decoded by gpu_kernel_name.h), so a row's error splits into the
// tile choice and the device's timing of that tile.
TEST_CASE("GPU held-out convolutions with cuDNN's kernel", "[.][cudnn_kernel][validation][gpu]") {
  for (const std::string gpu : {"h100", "h200"}) {
    std::map<std::string, double> graph;
    std::map<std::string, int> n;
    std::map<std::string, test::gpu::DeviceKernel> kernel;
    for (const auto& r : all_draws(gpu)) {
      if (r.kind != "conv") continue;
      graph[r.shape] += r.graph_seconds;
      ++n[r.shape];
      const auto d = test::gpu::parse_cudnn_fprop_kernel(r.kernels);
      if (d && !kernel.count(r.shape)) kernel[r.shape] = *d;
    }
    REQUIRE(!kernel.empty());
    std::map<std::string, std::string> list;  // yaml key -> values
    auto add = [&](const std::string& key, auto v) {
      list[key] += (list[key].empty() ? "" : ", ") + std::to_string(v);
    };
    for (const auto& [shape, d] : kernel) {
      long nb = 0, c = 0, k = 0, hw = 0, r = 0, st = 0;
      REQUIRE(std::sscanf(shape.c_str(), "n%ld_c%ld_k%ld_hw%ld_r%ld_s%ld", &nb, &c, &k, &hw, &r,
                          &st) == 6);
      add("workload.params.n", nb), add("workload.params.c", c), add("workload.params.k", k);
      add("workload.params.hw", hw), add("workload.params.r", r), add("workload.params.st", st);
      add("system.mapping.tile_m", d.tile_m), add("system.mapping.tile_n", d.tile_n);
      add("system.mapping.tile_k", d.tile_k), add("system.mapping.warps_m", d.warps_m);
      add("system.mapping.warps_n", d.warps_n);
    }
    test::TempDir dir;
    std::ofstream f(dir.file("kernels.yaml"));
    f << "name: heldout-cudnn-kernels\nbase: " << test::source_dir() << "/configs/presets/"
      << (gpu == "h100" ? "h100_sxm5" : "h200_sxm")
      << ".yaml\nsystem: {warmup: 1}\nworkload:\n  name: conv\n"
      << "  params: {n: 16, c: 512, k: 128, hw: 7, r: 3, st: 1}\n  layers:\n    - {name: conv, "
      << "op: conv2d, n: n, h: hw, w: hw, c: c, k: k, r: r, s: r, stride: st, pad: '(r - 1) / "
      << "2'}\nsweep:\n  zip:\n";
    const char* sep = "    - ";
    for (const auto& [key, values] : list)
      f << sep << key << ": [" << values << "]\n", sep = "      ";
    f.close();
    const auto run = test::simrun("kernels.yaml -o out.h5 -q -j 2", dir);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    std::cout << "\nHeld-out convolutions with cuDNN's kernel, " << gpu
              << "\n| shape | cuDNN tile | device ran | measured us | simulated us | error |\n"
                 "|---|---|---|---|---|---|\n";
    double sum = 0;
    int count = 0;
    for (const auto& p : stats::read_points(dir.file("out.h5"))) {
      REQUIRE(p.ok());
      test::gpu::SimulatedPoint sp;
      sp.assignments = {p.assignments.begin(), p.assignments.end()};
      const std::string shape = shape_of("conv", sp);
      double sim = 0;
      for (std::size_t i = 0; i < p.layers.rows().size(); ++i)
        sim += p.layers.get_number(i, "time");
      const double meas = graph.at(shape) / n.at(shape);
      const double err = meas / sim - 1;
      sum += std::abs(err);
      ++count;
      std::cout << fmt::format("| {} | {} | {} | {:.2f} | {:.2f} | {:+.1f}% |\n", shape,
                               kernel.at(shape).text(), p.layers.get_string(0, "tile"), 1e6 * meas,
                               1e6 * sim, 100 * err);
    }
    std::cout << fmt::format("{}: mean |error| {:.1f}% over {} convolutions with cuDNN's kernel\n",
                             gpu, 100 * sum / count, count);
  }
}

TEST_CASE("cuDNN's implicit-GEMM kernel names decode into the device's CTA configuration",
          "[validation][gpu]") {
  using test::gpu::parse_cudnn_fprop_kernel;
  const auto a = parse_cudnn_fprop_kernel(
      "Memset (Device) | sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_"
      "tilesize128x128x32_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn");
  REQUIRE(a);
  CHECK(a->text() == "128x128x32 wg1x1");
  const auto b = parse_cudnn_fprop_kernel(
      "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize256x96x32_"
      "warpgroupsize2x1x1_g1_execute_segment_k_off_kernel__5x_cudnn");
  REQUIRE(b);
  CHECK(b->tile_m == 256);
  CHECK(b->tile_n == 96);
  CHECK(b->tile_k == 32);
  CHECK(b->warps_m == 2);
  CHECK(b->warps_n == 1);
  CHECK_FALSE(parse_cudnn_fprop_kernel("nvjet_sm90_hsh_192x192_64x4_1x2_h_bz_coopB_TNN"));
  CHECK_FALSE(parse_cudnn_fprop_kernel(
      "void cutlass__5x_cudnn::Kernel<cutlass_tensorop_f16_s16816fprop_optimized_f16_64x128_32x6_"
      "nhwc_align8>"));
  CHECK_FALSE(parse_cudnn_fprop_kernel(
      "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize96x64x32_"
      "warpgroupsize1x1x1_g1"));  // 96 rows are no whole m64 wgmmas
  CHECK_FALSE(parse_cudnn_fprop_kernel(""));
}

}  // namespace
}  // namespace systole
