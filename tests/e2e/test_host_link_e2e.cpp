// End to end through simrun: a chip's host link (system.chip.host). A transfer over it takes
// its bytes over the link's bandwidth plus the link's latency (and the engine's setup); the
// first layer's matmuls start only once its input has arrived from host, while its weights
// stream in meanwhile; the output goes back after the last matmul. A host link of bandwidth 0
// is no host link: every figure is the one of a chip that declares none.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "tests/support/one_point.h"

using namespace systole;
using systole::test::TempDir;

namespace {

// TPU v1-like chip (700 MHz, one 256x256 int8 MXU, DMA setup 20 ns), one 256^3 int8 GEMM:
// 64 KiB of input and 64 KiB of output.
std::string experiment(const std::string& host) {
  return "base: " + test::source_dir() + "/configs/presets/tpuv1_like.yaml\n" +
         "system: {chip: {host: " + host + "}}\n" +
         "workload:\n  layers:\n"
         "    - {name: g, op: gemm, m: 256, n: 256, k: 256, dtype: int8}\n"
         "output: {trace: true}\n";
}

struct Event {
  std::uint64_t begin = std::numeric_limits<std::uint64_t>::max(), end = 0;
};

/// The earliest begin and latest end of the trace's events of `kind` on `unit`.
Event span(const stats::PointResult& p, const std::string& unit, const std::string& kind) {
  Event e;
  for (const auto& t : p.trace.events)
    if (p.trace.units.at(t.unit) == unit && p.trace.kinds.at(t.kind) == kind) {
      e.begin = std::min(e.begin, t.begin);
      e.end = std::max(e.end, t.end);
    }
  return e;
}

}  // namespace

TEST_CASE("host link: a transfer takes bytes / bandwidth + latency", "[e2e][host]") {
  TempDir dir;
  const auto p = test::run_one(experiment("{bandwidth: 1GB/s, latency: 2us}"), dir, "slow");
  // 20 ns setup + 65,536 B / 1 GB/s + 2 us = 67.556 us, in cycles of the kernel's clock period
  // (whole picoseconds: 1,429 ps at 700 MHz) = 47,275.0.
  const double expected = (20e-9 + 65536 / 1e9 + 2e-6) * 1e12 / 1429;
  const Event in = span(p, "chip0.host_dma", "load"), out = span(p, "chip0.host_dma", "store");
  INFO("load " << in.begin << ".." << in.end << ", store " << out.begin << ".." << out.end);
  REQUIRE(in.end > in.begin);
  REQUIRE(out.end > out.begin);
  CHECK(static_cast<double>(in.end - in.begin) == Approx(expected).margin(2));
  CHECK(static_cast<double>(out.end - out.begin) == Approx(expected).margin(2));
  CHECK(p.layers.get_int(0, "host_bytes") == 2 * 65536);
}

TEST_CASE("host link: the first layer starts after its input has arrived", "[e2e][host]") {
  TempDir dir;
  const auto p = test::run_one(experiment("{bandwidth: 14GB/s, latency: 1us}"), dir, "v1");
  const Event in = span(p, "chip0.host_dma", "load"), out = span(p, "chip0.host_dma", "store");
  const Event mm = span(p, "chip0.core0.mxu0", "matmul");
  const Event w = span(p, "chip0.core0.dma0", "load");
  REQUIRE(in.end > 0);
  CHECK(in.begin == 0);
  CHECK(mm.begin >= in.end);   // the matmuls read the input where it arrived
  CHECK(w.begin < in.end);     // the weights streamed in meanwhile
  CHECK(out.begin >= mm.end);  // the output left after the last matmul
  CHECK(static_cast<std::uint64_t>(p.layers.get_int(0, "end_cycle")) == out.end);
  // The trace names the memories each transfer moved between.
  for (const auto& e : p.trace.events)
    if (p.trace.units.at(e.unit) == "chip0.host_dma") {
      const bool load = p.trace.kinds.at(e.kind) == "load";
      CHECK(p.trace.places.at(load ? e.src : e.dst) == "chip0.host");
      CHECK(p.trace.places.at(load ? e.dst : e.src) == "chip0.core0.vmem");
    }
  // The MXU's wait for it is a host-input stall, inside its input and fill/drain stalls.
  const double host = p.layers.get_number(0, "mxu_stall_host_cycles");
  CHECK(host > 0);
  CHECK(host <= p.layers.get_number(0, "mxu_stall_input_cycles") +
                    p.layers.get_number(0, "mxu_fill_drain_cycles"));
}

TEST_CASE("host link: bandwidth 0 is no host link, every figure unchanged", "[e2e][host]") {
  TempDir dir;
  const std::string none = "base: " + test::source_dir() +
                           "/configs/presets/tpuv1_like.yaml\n"
                           "system: {chip: {host: {bandwidth: 0B/s}}}\n"
                           "workload: {file: " +
                           test::source_dir() + "/tests/validation/tpuv1/mlp1.yaml}\n";
  std::string zero = none;
  zero.replace(zero.find("{bandwidth: 0B/s}"), 17, "{bandwidth: 0B/s, latency: 2us}");
  const auto a = test::run_one(none, dir, "none");
  const auto b = test::run_one(zero, dir, "zero");
  REQUIRE(a.layers.rows().size() == b.layers.rows().size());
  for (const char* c : {"cycles", "end_cycle", "host_bytes", "hbm_bytes"})
    for (size_t i = 0; i < a.layers.rows().size(); ++i) {
      INFO(c << " of layer " << i);
      CHECK(a.layers.get_int(i, c) == b.layers.get_int(i, c));
    }
  CHECK(a.layers.get_int(0, "host_bytes") == 0);
  CHECK(a.layers.get_number(0, "mxu_stall_host_cycles") == 0);
  for (const char* c : {"mxu_busy_cycles", "mxu_stall_weight_cycles", "mxu_load_cycles"})
    CHECK(a.layers.get_number(0, c) == b.layers.get_number(0, c));
}

TEST_CASE("host link: a tpu_pod refuses one", "[e2e][host]") {
  test::check_rejected("base: " + test::source_dir() +
                           "/configs/presets/tpuv5e_slice.yaml\n"
                           "system: {chip: {host: {bandwidth: 14GB/s}}}\n"
                           "workload: {layers: [{name: g, op: gemm, m: 64, n: 64, k: 64}]}\n",
                       "a host link is modelled for one chip (system kind tpu_chip) only");
}

TEST_CASE("host link: --plan states its transfers without simulating", "[e2e][host]") {
  TempDir dir;
  dir.write("plan.yaml", experiment("{bandwidth: 1GB/s, latency: 2us}"));
  const auto r = test::simrun("plan.yaml --plan", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // 2 x (65,536 B / 1 GB/s + 2 us) = 135.072 us = 94,550 cycles at 700 MHz.
  CHECK_THAT(r.out, Catch::Contains("host link: 64 KiB in, 64 KiB out in 2 transfers: 94,550 "
                                    "cycles at 1 GB/s and 2 us each"));
  dir.write("none.yaml", experiment("{bandwidth: 0B/s}"));
  const auto n = test::simrun("none.yaml --plan", dir);
  REQUIRE(n.exit_code == 0);
  CHECK_THAT(n.out, !Catch::Contains("host link"));
}
