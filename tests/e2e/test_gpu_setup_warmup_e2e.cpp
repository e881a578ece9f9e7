// End to end through simrun on the SystemC GPU device: a library kernel's fixed set-up
// (device.gemm_setup for GEMM kernels, device.implicit_gemm_setup for a convolution's implicit
// GEMM) delays exactly the kernels it names by exactly its time, and warm-up passes
// (system.warmup) leave the measured pass the L2 a benchmark's earlier calls leave, report that
// pass alone, and are refused where they are not supported (gpu_node).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/one_point.h"

using namespace systole;
using systole::test::TempDir;

namespace {

// A fixed SM clock (no power limit) and the bandwidth HBM model: a kernel's body then takes the
// same cycles whenever it starts, so a set-up shifts it by exactly its own cycles.
const std::string kFixedClock =
    "system: {device: {boost_clock: 0Hz, hbm: {model: bandwidth}, gemm_setup: %G, "
    "implicit_gemm_setup: %C}}\n";
const std::string kLayers =
    "    - {name: gemm, op: gemm, m: 1024, n: 1024, k: 512}\n"
    "    - {name: conv3, op: conv2d, n: 2, h: 28, w: 28, c: 64, k: 64, r: 3, s: 3, pad: 1}\n"
    "    - {name: act, op: gelu, rows: 1024, cols: 1024}\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

/// The one point of an H100 experiment: `system` (its extra sections) and `layers`.
stats::PointResult run(const std::string& system, const std::string& layers) {
  TempDir dir;
  return test::run_one("base: " + test::source_dir() + "/configs/presets/h100_sxm5.yaml\n" +
                           system + "workload:\n  layers:\n" + layers,
                       dir, "w");
}

stats::PointResult with_setup(const std::string& gemm, const std::string& conv) {
  return run(replace(replace(kFixedClock, "%G", gemm), "%C", conv), kLayers);
}

}  // namespace

TEST_CASE("gpu_device: a library kernel's set-up delays that kernel by exactly its time",
          "[e2e][gpu]") {
  const auto none = with_setup("0us", "0us");
  const auto set = with_setup("2us", "3us");
  REQUIRE(none.layers.rows().size() == 3);
  // 1830 MHz (the H100 preset's SM clock): 2 us = 3660 cycles, 3 us = 5490 cycles.
  CHECK(set.layers.get_number(0, "cycles") - none.layers.get_number(0, "cycles") == 3660);
  CHECK(set.layers.get_number(1, "cycles") - none.layers.get_number(1, "cycles") == 5490);
  CHECK(set.layers.get_number(2, "cycles") == none.layers.get_number(2, "cycles"));
  // Only the GEMM's set-up: the implicit-GEMM convolution does not take it.
  const auto gemm_only = with_setup("2us", "0us");
  CHECK(gemm_only.layers.get_number(1, "cycles") == none.layers.get_number(1, "cycles"));
}

TEST_CASE("gpu_device: a warm-up pass leaves the measured pass a warm L2 and is not reported",
          "[e2e][gpu]") {
  const std::string gemm = "    - {name: gemm, op: gemm, m: 1024, n: 1024, k: 1024}\n";
  const auto cold = run("output: {trace: true}\nsystem: {device: {boost_clock: 0Hz}}\n", gemm);
  const auto warm =
      run("output: {trace: true}\nsystem: {device: {boost_clock: 0Hz}, warmup: 1}\n", gemm);
  REQUIRE(warm.layers.rows().size() == 1);
  // 6 MiB of operands and result fit the 50 MiB L2: the second pass reads nothing from HBM.
  CHECK(cold.layers.get_number(0, "hbm_bytes") >= 2.0 * 1024 * 1024 * 2);
  CHECK(warm.layers.get_number(0, "hbm_bytes") < cold.layers.get_number(0, "hbm_bytes"));
  CHECK(warm.layers.get_number(0, "l2_hit_rate") > cold.layers.get_number(0, "l2_hit_rate"));
  // The trace holds the measured pass alone, from cycle 0 to the layer's cycles.
  REQUIRE(!warm.trace.events.empty());
  std::uint64_t first = ~0ull, last = 0;
  for (const auto& e : warm.trace.events)
    first = std::min(first, e.begin), last = std::max(last, e.end);
  CHECK(first == 0);
  CHECK(static_cast<double>(last) <= warm.layers.get_number(0, "cycles"));
  // As many CTA records as one pass has (HBM fetches differ: the warm pass has none).
  auto ctas = [](const stats::PointResult& p) {
    const auto& k = p.trace.kinds;
    const auto cta = static_cast<std::uint16_t>(std::find(k.begin(), k.end(), "cta") - k.begin());
    return std::count_if(p.trace.events.begin(), p.trace.events.end(),
                         [&](const auto& e) { return e.kind == cta; });
  };
  CHECK(ctas(cold) > 0);
  CHECK(ctas(warm) == ctas(cold));
}

TEST_CASE(
    "gpu_device: a repeated layer's measured pass finds its activations warm, not its weights",
    "[e2e][gpu]") {
  // A `repeat: 4` GEMM stands for four layers with weights of their own (2 MiB each): the
  // measured pass is the next instance, whose weights the warm-up pass did not read, as in a
  // real network; a layer without a repeat finds all of its operands warm.
  const std::string sys = "system: {device: {boost_clock: 0Hz}, warmup: 1}\n";
  auto hbm = [&](const std::string& repeat) {
    const auto p = run(sys, "    - {name: g, op: gemm, m: 1024, n: 1024, k: 1024" + repeat + "}\n");
    return p.layers.get_number(0, "hbm_bytes");  // all instances
  };
  const double weights = 1024.0 * 1024 * 2;
  const double once = hbm(""), repeated = hbm(", repeat: 4") / 4;
  CHECK(once < 0.05 * weights);
  CHECK(repeated >= weights);
  CHECK(repeated < 1.5 * weights);  // A and C stay warm
}

TEST_CASE("gpu_device: under the power cap each warm-up pass settles the clock from its activity",
          "[e2e][gpu][power]") {
  // 7808x1856x640 (clock probe, tests/validation/gpu/README.md): the mapper's estimate puts its
  // tensor activity at nearly twice what the simulation runs, so the clock from the estimate
  // (no warm-up) is low; a pass's simulated activity raises it, and it settles.
  const std::string gemm = "    - {name: gemm, op: gemm, m: 7808, n: 1856, k: 640}\n";
  auto clock = [&](int warmup, const std::string& device) {
    return run("system: {device: {hbm: {model: bandwidth}" + device +
                   "}, warmup: " + std::to_string(warmup) + "}\n",
               gemm)
        .metrics.number("sm_clock");
  };
  const double f0 = clock(0, ""), f1 = clock(1, ""), f2 = clock(2, ""), f3 = clock(3, "");
  CHECK(f0 < 1500e6);
  CHECK(f1 > f0 + 150e6);
  CHECK(f1 <= 1980e6);               // the boost clock
  CHECK(std::abs(f2 - f1) <= 30e6);  // two 15 MHz steps
  CHECK(f3 == f2);                   // settled
  // Without the power model the clock stays the preset's whatever the passes.
  CHECK(clock(1, ", boost_clock: 0Hz") == 1830e6);
}

TEST_CASE("gpu_node refuses warm-up passes: one clear error, exit 2", "[e2e][gpu][errors]") {
  TempDir dir;
  dir.write("n.yaml", "base: " + test::source_dir() +
                          "/configs/presets/hgx_h100_8.yaml\n"
                          "workload:\n  layers:\n    - {name: g, op: gemm, m: 256, n: 256, k: "
                          "256}\n");
  const auto r = test::simrun("n.yaml -q -o out.h5 -p system.gpu.warmup=1", dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("system.gpu.warmup") != std::string::npos);
  CHECK(r.err.find("single-GPU option") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.file("out.h5")));
}
