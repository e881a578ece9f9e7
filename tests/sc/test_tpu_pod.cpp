// SystemC testbenches of the tpu_pod system: collectives as layers meet the alpha-beta formula on
// an idle network, and a tensor-parallel all-reduce overlaps the next layer's weight loads.
// ctest runs each TEST_CASE in its own process (SystemC allows one elaboration per process).
#include <catch2/catch.hpp>

#include "models/systems/tpu_pod/tpu_pod_system.h"
#include "sim/config/node.h"
#include "workloads/frontends/yaml_workload.h"

using namespace systole;

namespace {

// A TPU v4 chip with the bandwidth HBM (fast), on an ICI slice of `shape`.
models::TpuPodConfig pod(const std::string& shape, int tensor, const std::string& model = "flow") {
  const auto node = config::parse_yaml(
      "chip: {hbm: {model: bandwidth, bandwidth: 1200GB/s, capacity: 32GiB}}\n"
      "ici: {shape: \"" +
          shape + "\", model: " + model +
          "}\n"
          "parallel: {tensor: " +
          std::to_string(tensor) + "}\n",
      "pod.yaml");
  return models::TpuPodConfig::schema().load(node, "system");
}

workloads::Workload workload(const std::string& yaml) {
  return workloads::load_workload(config::parse_yaml(yaml, "w.yaml"));
}

}  // namespace

TEST_CASE("tpu_pod: a collective layer meets the alpha-beta formula on an idle network",
          "[sc][pod]") {
  models::TpuPodSystem sys(pod("4x4", 1));
  const auto w = workload(
      "layers: [{name: ar, op: all_reduce, bytes: 64MiB}, "
      "{name: ag, op: all_gather, bytes: 8MiB, group: [y], algorithm: bidir_ring}]");
  const auto r = sys.run(w, {});
  for (std::size_t l = 0; l < 2; ++l) {
    const double t = r.layers.get_number(l, "collective_time");
    const double f = r.layers.get_number(l, "collective_formula_time");
    INFO("layer " << l << ": simulated " << t << " s, alpha-beta " << f << " s");
    REQUIRE(t > 0);
    // models/ici/README.md: on an idle network within 0.1% + 1 ns of the formula.
    REQUIRE(std::abs(t - f) <= 1e-3 * f + 1e-9);
    // The layer lasts as long as its collective: the op completes when the last message lands.
    REQUIRE(std::abs(r.layers.get_number(l, "time") - t) <= 1e-9);
    const double bytes = l == 0 ? 64.0 * 1048576 : 8.0 * 1048576;
    REQUIRE(r.layers.get_number(l, "algbw") == Approx(bytes / t).epsilon(1e-12));
    // nccl-tests: busbw = algbw x 2(p-1)/p for all-reduce (p = 16), (p-1)/p for all-gather (4).
    const double factor = l == 0 ? 2.0 * 15 / 16 : 3.0 / 4;
    REQUIRE(r.layers.get_number(l, "busbw") == Approx(bytes / t * factor).epsilon(1e-12));
    // Nothing computes: all of it is exposed.
    REQUIRE(r.layers.get_number(l, "exposed_comm_time") == Approx(t).epsilon(1e-9));
  }
}

TEST_CASE("tpu_pod: a tensor-parallel all-reduce overlaps the next layer's weight loads",
          "[sc][pod]") {
  // g1 column-split, g2 row-split (then an all-reduce of its 1024 x 4096 bf16 output, 8 MiB),
  // g3 column-split again: its weights do not depend on the all-reduce and stream in during it.
  models::TpuPodSystem sys(pod("4", 4));
  const auto w = workload(
      "layers: [{name: g1, m: 1024, n: 4096, k: 4096}, {name: g2, m: 1024, n: 4096, k: 4096}, "
      "{name: g3, m: 1024, n: 4096, k: 4096}]");
  models::RunOptions opt;
  opt.trace = true;
  const auto r = sys.run(w, opt);
  REQUIRE(r.layers.rows().size() == 4);
  REQUIRE(r.layers.get_string(2, "layer") == "g2.all_reduce");
  std::uint64_t ar_begin = 0, ar_end = 0, g3_first_load = ~0ull, g3_first_matmul = ~0ull;
  const auto kind = [&](const char* k) {
    for (std::size_t i = 0; i < r.trace.kinds.size(); ++i)
      if (r.trace.kinds[i] == k) return static_cast<std::uint16_t>(i);
    FAIL("no trace kind " << k);
    return std::uint16_t{0};
  };
  for (const auto& e : r.trace.events) {
    if (e.layer == 2 && e.kind == kind("collective")) {
      ar_begin = e.begin;
      ar_end = e.end;
    }
    if (e.layer == 3 && e.kind == kind("load")) g3_first_load = std::min(g3_first_load, e.begin);
    if (e.layer == 3 && e.kind == kind("matmul"))
      g3_first_matmul = std::min(g3_first_matmul, e.begin);
  }
  INFO("all-reduce " << ar_begin << ".." << ar_end << ", g3 first load " << g3_first_load
                     << ", first matmul " << g3_first_matmul);
  REQUIRE(ar_end > ar_begin);
  REQUIRE(g3_first_load < ar_end);     // weights stream in during the all-reduce
  REQUIRE(g3_first_matmul >= ar_end);  // but g3 computes on the reduced activations
  // The all-reduce: 8 MiB over a ring of 4, at the formula's time.
  REQUIRE(r.layers.get_number(2, "collective_bytes") == 1024.0 * 4096 * 2);
  REQUIRE(r.layers.get_number(2, "collective_time") ==
          Approx(r.layers.get_number(2, "collective_formula_time")).epsilon(1e-3));
  // g3 starts computing sooner than with each layer starting cold: its span after the
  // all-reduce is shorter than g1's, which loaded its weights from scratch.
  REQUIRE(r.layers.get_number(3, "time") < r.layers.get_number(0, "time"));
}

TEST_CASE("tpu_pod: with the packet-level network a collective layer meets the formula too",
          "[sc][pod]") {
  // The reference network (every packet, every hop, credits) under the same chip program: an
  // idle ring's all-reduce meets its alpha-beta time (models/ici/README.md: 0.1% + 1 ns).
  models::TpuPodSystem sys(pod("4x2", 1, "packet"));
  const auto r = sys.run(workload("layers: [{op: all_reduce, bytes: 2MiB, group: [x]}]"), {});
  const double t = r.layers.get_number(0, "collective_time");
  const double f = r.layers.get_number(0, "collective_formula_time");
  INFO("simulated " << t << " s, alpha-beta " << f << " s");
  REQUIRE(t > 0);
  REQUIRE(std::abs(t - f) <= 1e-3 * f + 1e-9);
}
