// SystemC testbenches of pipeline parallelism on a TPU slice (models/systems/tpu_pod): a stage
// hand-off on an idle network takes its alpha-beta time; a pipeline of equal stages takes
// (M + P - 1) stage times plus one hand-off per stage boundary, and its bubble is GPipe's
// (P - 1) / (M + P - 1) (Huang et al., "GPipe", arXiv 1811.06965, §2.2).
// ctest runs each TEST_CASE in its own process (SystemC allows one elaboration per process).
#include <catch2/catch.hpp>

#include <systemc>

#include <algorithm>
#include <functional>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_module.h"
#include "models/systems/tpu_pod/tpu_pod_pipeline.h"
#include "models/systems/tpu_pod/tpu_pod_system.h"
#include "sim/config/node.h"
#include "tests/support/sc_driver.h"
#include "workloads/frontends/yaml_workload.h"

using namespace systole;
using namespace systole::models;

namespace {

using test::Driver;

void p2p_meets_formula(const char* model) {
  config::Node n = config::Node::map();
  n.set("shape", config::Node::scalar("4x4"));
  n.set("model", config::Node::scalar(model));
  const IciConfig c = IciConfig::schema().load(n, "ici");
  IciNetworkModule net("ici", c);
  // Every chip of row y = 0 sends to its peer in row y = 2 (two hops on +y or -y; the routes
  // share no link), as a 4-stage pipeline's stage 0 does to stage 2 when they are two apart.
  std::vector<std::pair<ChipId, ChipId>> pairs;
  for (ChipId x = 0; x < 4; ++x) pairs.emplace_back(x, x + 8);
  const std::uint64_t bytes = 3u << 20;
  double measured = -1;
  std::uint64_t at = 0;
  Driver d("stage0", [&] {
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    at = sc_core::sc_time_stamp().value();
    net.start_point_to_point(pairs, bytes, [&](double t) { measured = t; });
  });
  sc_core::sc_start();
  const double formula =
      point_to_point_seconds(net.topology(), IciLinkTiming::from(c), pairs, bytes);
  INFO(model << ": simulated " << measured << " s, alpha-beta " << formula << " s");
  // Two hops x (1 us + 20 ns) + 3 MiB at 50 GB/s, in 512 B packets of 10,240 ps.
  REQUIRE(formula == Approx(2 * 1.02e-6 + 6144 * 10240e-12).epsilon(1e-12));
  REQUIRE(std::abs(measured - formula) <= 1e-12);  // the same picosecond
  REQUIRE(at == 5000000);
  REQUIRE(net.collectives().empty());  // not a collective
}

}  // namespace

TEST_CASE("tpu_pod pipeline: a stage hand-off on an idle network meets its formula (flow)",
          "[sc][pod][pipeline]") {
  p2p_meets_formula("flow");
}

TEST_CASE("tpu_pod pipeline: a stage hand-off on an idle network meets its formula (packet)",
          "[sc][pod][pipeline]") {
  p2p_meets_formula("packet");
}

TEST_CASE("tpu_pod pipeline: equal stages take (M + P - 1) stage times, GPipe's bubble",
          "[sc][pod][pipeline]") {
  // Four identical GEMMs on a line of 4 chips, one per stage, 8 micro-batches of 256 rows
  // (k = 131072 makes each stage's compute long beside its 256 x 256 bf16 = 128 KiB hand-off).
  // Each layer starts cold (layer_overlap: false: no weight prefetch, not even while a stage
  // waits for its input), so every micro-batch of a stage takes the same time t; stage s then
  // starts micro-batch 0 at s (t + d), d the hand-off, and never waits again: the run takes M t +
  // (P - 1)(t + d).
  const auto node = config::parse_yaml(
      "chip: {hbm: {model: bandwidth, bandwidth: 1200GB/s, capacity: 32GiB}}\n"
      "ici: {shape: \"4\", topology: mesh}\n"
      "parallel: {pipeline: 4, microbatches: 8}\n"
      "mapping: {layer_overlap: false}\n",
      "pod.yaml");
  TpuPodSystem sys(TpuPodConfig::schema().load(node, "system"));
  const auto w = workloads::load_workload(
      config::parse_yaml("layers: [{name: g0, batch: 8, m: 256, n: 256, k: 131072}, "
                         "{name: g1, batch: 8, m: 256, n: 256, k: 131072}, "
                         "{name: g2, batch: 8, m: 256, n: 256, k: 131072}, "
                         "{name: g3, batch: 8, m: 256, n: 256, k: 131072}]",
                         "w.yaml"));
  const auto r = sys.run(w, {});
  const stats::Table* st = nullptr;
  for (const auto& t : r.units)
    if (t.name() == "pipeline_stages") st = &t;
  REQUIRE(st != nullptr);
  REQUIRE(st->rows().size() == 4);
  const double m = 8, p = 4;
  double t = 0, d = 0;
  for (std::size_t s = 0; s < 4; ++s) {
    t = std::max(t, st->get_number(s, "busy_time") / m);
    REQUIRE(st->get_number(s, "layers") == 1);
    if (s < 3) {
      // Each boundary's 8 hand-offs on links no other uses: each meets its formula.
      REQUIRE(st->get_number(s, "p2p_bytes") == 8.0 * 256 * 256 * 2);
      REQUIRE(std::abs(st->get_number(s, "p2p_time") - st->get_number(s, "p2p_formula_time")) <=
              8e-12);
      d = st->get_number(s, "p2p_time") / m;
    } else {
      REQUIRE(st->get_number(s, "p2p_bytes") == 0);
    }
  }
  // Equal stages: every stage is busy M t (within 0.1%: a stage starts each micro-batch when its
  // input lands, at any picosecond, and its units then step in whole clock periods).
  for (std::size_t s = 0; s < 4; ++s)
    REQUIRE(st->get_number(s, "busy_time") == Approx(m * t).epsilon(1e-3));
  const double time = r.metrics.number("time");
  INFO("t = " << t << " s, d = " << d << " s, run " << time << " s");
  REQUIRE(d < 0.1 * t);  // tiny activations
  REQUIRE(time >= (m + p - 1) * t * (1 - 1e-3));
  REQUIRE(time <= (m + p - 1) * t * (1 + 1e-3) + (p - 1) * d);
  const double bubble = r.metrics.number("pipeline_bubble");
  const double gpipe = (p - 1) / (m + p - 1);
  REQUIRE(r.metrics.number("pipeline_bubble_formula") == Approx(gpipe));
  REQUIRE(bubble >= gpipe - 1e-3);
  REQUIRE(bubble <= gpipe + (p - 1) * d / time + 1e-3);
  REQUIRE(r.metrics.number("p2p_bytes") == 3 * 8.0 * 256 * 256 * 2);
}

TEST_CASE("tpu_pod pipeline: stages and their peers on the slice's axes", "[sc][pod][pipeline]") {
  // 4x2x2 with stages on y and z (P = 4): chip (x, y, z) = x + 4 (y + 2 z) is in stage y + 2 z;
  // its peer in the next stage has the same x.
  const IciTopology topo(IciTopologyKind::kMesh, {4, 2, 2});
  const StageChips st = stage_chips(topo, {{false, true, true}}, 4);
  REQUIRE(st.chips.size() == 4);
  std::vector<int> seen(16, 0);
  for (std::size_t s = 0; s < 4; ++s) {
    REQUIRE(st.chips[s].size() == 4);
    for (ChipId c : st.chips[s]) {
      ++seen[c];
      const ChipCoord at = topo.coord(c);
      REQUIRE(static_cast<std::size_t>(at[1] + 2 * at[2]) == s);
    }
    const auto mask = st.mask(s, 16);
    for (ChipId c = 0; c < 16; ++c)
      REQUIRE(mask[c] ==
              (std::find(st.chips[s].begin(), st.chips[s].end(), c) != st.chips[s].end()));
    REQUIRE(st.to_next[s].size() == (s < 3 ? 4u : 0u));
    for (const auto& [from, to] : st.to_next[s]) {
      REQUIRE(topo.coord(from)[0] == topo.coord(to)[0]);
      REQUIRE(std::find(st.chips[s + 1].begin(), st.chips[s + 1].end(), to) !=
              st.chips[s + 1].end());
    }
  }
  for (int n : seen) REQUIRE(n == 1);
  // Stage 1 (y = 1, z = 0) hands off to stage 2 (y = 0, z = 1): chip 4 + x to chip 8 + x.
  REQUIRE(st.to_next[1].front() == std::make_pair(ChipId{4}, ChipId{8}));
}
