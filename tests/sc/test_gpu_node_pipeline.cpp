// SystemC testbenches of pipeline parallelism on the gpu_node system (GPipe over the node's
// GPUs): a stage's GPU runs exactly what a data-parallel node's GPU runs for the same per-GPU
// layer, the next stage starts when the hand-off has arrived, equal stages leave GPipe's bubble,
// and impossible setups are errors naming the key. ctest runs each TEST_CASE in its own process
// (one elaboration each).
#include <catch2/catch.hpp>

#include "models/systems/gpu_node/gpu_node_system.h"
#include "sim/config/node.h"
#include "sim/core/error.h"
#include "tests/support/run.h"
#include "workloads/frontends/yaml_workload.h"

using namespace systole;

namespace {

// The HGX H100 preset with `extra` (YAML under system:) merged, as simrun loads it.
models::GpuNodeConfig node(const std::string& extra) {
  config::Node root = config::resolve_bases(config::parse_yaml(
      "base: " + test::source_dir() + "/configs/presets/hgx_h100_8.yaml\n", "node.yaml"));
  config::merge_into(*root.find("system"), config::parse_yaml(extra, "extra.yaml"));
  return models::GpuNodeConfig::schema().load(models::unwrap_gpu_file(*root.find("system")),
                                              "system");
}

workloads::Workload workload(const std::string& yaml) {
  return workloads::load_workload(config::parse_yaml(yaml, "w.yaml"));
}

// Two identical GEMMs: per GPU 512 x 4096 x 4096 with data 4 (one micro-batch).
const char* kTwoGemms =
    "layers: [{name: g1, m: 2048, n: 4096, k: 4096}, {name: g2, m: 2048, n: 4096, k: 4096}]";

double metric(const stats::PointResult& r, const std::string& name) {
  return r.metrics.number(name);
}

const stats::Table& stages_table(const stats::PointResult& r) {
  for (const auto& t : r.units)
    if (t.name() == "pipeline_stages") return t;
  FAIL("no pipeline_stages table");
  return r.units.front();
}

}  // namespace

TEST_CASE("gpu_node pipeline: the next stage starts when the hand-off has arrived",
          "[sc][gpu_node][pipeline]") {
  models::GpuNodeSystem pp(node("parallel: {data: 4, pipeline: 2, microbatches: 1}"));
  const auto r = pp.run(workload(kTwoGemms), {});
  const stats::Table& st = stages_table(r);
  REQUIRE(st.rows().size() == 2);
  const double p2p = metric(r, "p2p_time"), busy0 = st.get_number(0, "busy_time");
  const double busy = st.get_number(1, "busy_time");
  INFO("stages " << busy0 << " and " << busy << " s, hand-off " << p2p << " s, run "
                 << metric(r, "time") << " s");
  CHECK(p2p > 0);
  // The same kernel shape on both stages, but at other addresses (g2's operands are not g1's)
  // and from another start time, both of which the bank-level HBM sees: 25.66 and 26.07 us
  // since the device runs TMA multicast (equal before). Stage 1 waited for the whole of stage
  // 0 and the hand-off (M = 1).
  CHECK(busy == Approx(busy0).epsilon(0.05));
  CHECK(metric(r, "time") == Approx(busy0 + p2p + busy).margin(1e-12));
  // A stage's busy time is its GPU's kernel: the layer's time less the gap a next kernel pays.
  REQUIRE(r.layers.rows().size() == 1);  // the last stage's GPU: one micro-batch of g2
  CHECK(r.layers.get_string(0, "layer") == "mb0.g2");
  const double gap = pp.config().gpu.device.inter_kernel_gap.value() * 1e-12;
  // The layer's kernel and gap are each whole SM cycles (rounded up); the busy time is not.
  const double cycle = 1.0 / r.metrics.number("sm_clock");
  CHECK(r.layers.get_number(0, "time") - gap >= busy - 1e-12);
  CHECK(r.layers.get_number(0, "time") - gap <= busy + 2 * cycle);
  // 4 MiB per GPU (512 x 4096 bf16) from each of stage 0's four GPUs, on GPUs 0-3 to 4-7.
  CHECK(metric(r, "p2p_bytes") == 512.0 * 4096 * 2);
  CHECK(st.get_number(0, "first_gpu") == 0);
  CHECK(st.get_number(1, "first_gpu") == 4);
  CHECK(metric(r, "pipeline_bubble") == Approx(1 - (busy0 + busy) / (2 * (busy0 + busy + p2p))));
}

TEST_CASE("gpu_node pipeline: stages overlap over micro-batches, GPipe's bubble at least",
          "[sc][gpu_node][pipeline]") {
  models::GpuNodeSystem pp(node("parallel: {data: 4, pipeline: 2, microbatches: 4}"));
  const auto r = pp.run(workload(kTwoGemms), {});
  const stats::Table& st = stages_table(r);
  const double b0 = st.get_number(0, "busy_time"), b1 = st.get_number(1, "busy_time");
  const double bubble = metric(r, "pipeline_bubble"), time = metric(r, "time");
  INFO("busy " << b0 << " / " << b1 << " s, run " << time << " s, bubble " << bubble);
  CHECK(metric(r, "pipeline_bubble_formula") == Approx(0.2));
  // The same work (micro-batch 0 finds a cold L2); the stages start at different times, so the
  // bank-level HBM's refreshes and bank states fall differently on them: 0.24% apart with the
  // library set-up (within 0.1% without it, or with hbm.model: bandwidth).
  CHECK(b1 == Approx(b0).epsilon(5e-3));
  CHECK(time < b0 + b1);  // the stages ran side by side
  CHECK(time > b0);
  CHECK(bubble >= 0.2);  // hand-offs and the cold first micro-batch only add to it
  // Both stages ran all four micro-batches: the last stage's layers are mb0..mb3.
  REQUIRE(r.layers.rows().size() == 4);
  CHECK(r.layers.get_string(3, "layer") == "mb3.g2");
  CHECK(metric(r, "p2p_bytes") == 4 * 128.0 * 4096 * 2);  // 4 sends of 128 rows each
}

TEST_CASE("gpu_node pipeline: impossible setups are errors naming the key",
          "[sc][gpu_node][pipeline]") {
  CHECK_THROWS_WITH(node("parallel: {microbatches: 2}"), Catch::Contains("microbatches"));
  CHECK_THROWS_WITH(node("parallel: {data: 2, tensor: 2, pipeline: 3}"),
                    Catch::Contains("data x tensor x pipeline"));
  CHECK_THROWS_WITH(node("parallel: {tensor: 4, pipeline: 3}"), Catch::Contains("pipeline"));
  models::GpuNodeSystem three(node("parallel: {tensor: 1, data: 1, pipeline: 8}"));
  CHECK_THROWS_AS(three.check(workload(kTwoGemms)), WorkloadError);  // fewer layers than stages
  models::GpuNodeSystem odd(node("parallel: {data: 4, pipeline: 2, microbatches: 3}"));
  CHECK_THROWS_WITH(odd.check(workload(kTwoGemms)), Catch::Contains("microbatches"));
}
