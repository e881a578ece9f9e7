// End to end through simrun: one kernel run per design point over the whole workload's op graph.
// With system.mapping.layer_overlap (the default) the second GEMM's first weight load begins
// before the first GEMM's last matmul ends; with layer_overlap: false no op of the second layer
// begins before every op of the first has ended. Layer cycles add up to the run's cycles.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

struct Spans {
  std::uint64_t first_matmul_end_l0 = 0, last_matmul_end_l0 = 0, last_end_l0 = 0;
  std::uint64_t first_load_begin_l1 = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t first_begin_l1 = std::numeric_limits<std::uint64_t>::max();
};

Spans spans(const stats::PointResult& p) {
  const auto kind = [&](const stats::TraceEvent& e) { return p.trace.kinds.at(e.kind); };
  Spans s;
  for (const auto& e : p.trace.events) {
    if (e.layer == 0) {
      s.last_end_l0 = std::max(s.last_end_l0, e.end);
      if (kind(e) == "matmul") s.last_matmul_end_l0 = std::max(s.last_matmul_end_l0, e.end);
    } else {
      s.first_begin_l1 = std::min(s.first_begin_l1, e.begin);
      if (kind(e) == "load") s.first_load_begin_l1 = std::min(s.first_load_begin_l1, e.begin);
    }
  }
  return s;
}

stats::PointResult run_two_gemms(TempDir& dir, const std::string& overlap) {
  dir.write("two.yaml", "base: " + test::source_dir() +
                            "/configs/presets/tpuv4_chip.yaml\n"
                            "system: {mapping: {layer_overlap: " +
                            overlap +
                            "}}\n"
                            "workload:\n  layers:\n"
                            "    - {name: g1, op: gemm, m: 1024, n: 2048, k: 2048}\n"
                            "    - {name: g2, op: gemm, m: 1024, n: 2048, k: 2048}\n"
                            "output: {trace: true}\n");
  const auto r = test::simrun("two.yaml -q -o out.h5", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 1);
  REQUIRE(points[0].layers.rows().size() == 2);
  // Layer cycles add up to the run's cycles (the end of its last op) exactly, overlapped or not.
  const auto& l = points[0].layers;
  CHECK(l.get_int(0, "cycles") == l.get_int(0, "end_cycle"));
  CHECK(l.get_int(0, "cycles") + l.get_int(1, "cycles") == l.get_int(1, "end_cycle"));
  return points[0];
}

}  // namespace

TEST_CASE("the next layer's weights stream in while the current layer computes", "[e2e][overlap]") {
  TempDir dir;
  const auto s = spans(run_two_gemms(dir, "true"));
  INFO("g1's last matmul ends at " << s.last_matmul_end_l0 << ", g2's first load begins at "
                                   << s.first_load_begin_l1);
  CHECK(s.first_load_begin_l1 < s.last_matmul_end_l0);
}

TEST_CASE("layer_overlap: false starts each layer when the one before it has ended",
          "[e2e][overlap]") {
  TempDir dir;
  const auto s = spans(run_two_gemms(dir, "false"));
  INFO("g1 ends at " << s.last_end_l0 << ", g2 begins at " << s.first_begin_l1);
  CHECK(s.first_begin_l1 >= s.last_end_l0);
  CHECK(s.first_load_begin_l1 > s.last_matmul_end_l0);
}
