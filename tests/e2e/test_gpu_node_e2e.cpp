// End to end: simrun runs gpu_node experiments. Data parallelism alone gives each GPU the
// gpu_device run of its share, exactly; the shipped node experiments validate and plan;
// impossible node and parallel setups are one clear error, exit 2, no output.
#include <catch2/catch.hpp>

#include "sim/stats/results_file.h"
#include "tests/support/one_point.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::check_rejected;
using systole::test::run_one;
using systole::test::TempDir;

namespace {

std::string presets() { return test::source_dir() + "/configs/presets"; }

// Two GEMMs, an attention and an elementwise layer, batch BATCH.
std::string layers(int batch) {
  const std::string b = std::to_string(batch);
  return "workload:\n  layers:\n"
         "    - {name: a, batch: " +
         b +
         ", m: 128, n: 512, k: 384}\n"
         "    - {name: att, op: attention, batch: " +
         b +
         ", heads: 4, seq_q: 128, seq_kv: 128, head_dim: 64}\n"
         "    - {name: b, batch: " +
         b +
         ", m: 128, n: 1024, k: 512}\n"
         "    - {name: c, op: gelu, rows: " +
         std::to_string(batch * 128) + ", cols: 1024}\n";
}

}  // namespace

TEST_CASE("gpu_node: data 8 x tensor 1 gives each GPU the gpu_device run of its share",
          "[e2e][gpu_node]") {
  TempDir dir;
  const std::string hbm = "    device: {hbm: {model: bandwidth}}\n";
  const auto gpu =
      run_one("base: " + presets() + "/h100_sxm5.yaml\nsystem:\n" + hbm + layers(1), dir, "gpu");
  const auto node = run_one("base: " + presets() + "/hgx_h100_8.yaml\nsystem:\n  gpu:\n  " + hbm +
                                "  parallel: {data: 8, tensor: 1}\n" + layers(8),
                            dir, "node");
  REQUIRE(node.layers.rows().size() == gpu.layers.rows().size());
  for (std::size_t l = 0; l < gpu.layers.rows().size(); ++l) {
    INFO("layer " << gpu.layers.get_string(l, "layer"));
    CHECK(node.layers.get_string(l, "shape") == gpu.layers.get_string(l, "shape"));
    CHECK(node.layers.get_int(l, "cycles") == gpu.layers.get_int(l, "cycles"));
    CHECK(node.layers.get_int(l, "hbm_bytes") == gpu.layers.get_int(l, "hbm_bytes"));
    CHECK(node.layers.get_number(l, "collective_time") == 0);
  }
  CHECK(node.metrics.number("total_cycles") == gpu.metrics.number("total_cycles"));
  CHECK(node.metrics.number("sm_clock") == gpu.metrics.number("sm_clock"));
  CHECK(node.metrics.number("peak_flops") == 8 * gpu.metrics.number("peak_flops"));
  CHECK(node.metrics.number("achieved_flops") == gpu.metrics.number("achieved_flops"));
  CHECK(node.metrics.number("hbm_bytes") == gpu.metrics.number("hbm_bytes"));
}

TEST_CASE("gpu_node: the shipped experiments and presets validate and plan", "[e2e][gpu_node]") {
  TempDir dir;
  for (const char* cfg : {"h100_node_allreduce_sweep.yaml", "h100_node_gpt3.yaml",
                          "compare_tpuv4_pod_hgx_h100.yaml", "h100_node_pipeline.yaml"}) {
    const auto r = test::simrun(test::source_dir() + "/configs/" + cfg + " --validate", dir);
    INFO(cfg << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
  }
  const auto plan = test::simrun(test::source_dir() + "/configs/h100_node_gpt3.yaml --plan", dir);
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit_code == 0);
  CHECK_THAT(plan.out, Catch::Contains("out_proj.all_reduce *") &&
                           Catch::Contains("mlp_down.all_reduce *") &&
                           Catch::Contains("column n/8") && Catch::Contains("row k/8") &&
                           Catch::Contains("over 8 GPUs"));
  const auto pipe =
      test::simrun(test::source_dir() + "/configs/h100_node_pipeline.yaml --plan", dir);
  INFO(pipe.out << pipe.err);
  REQUIRE(pipe.exit_code == 0);
  CHECK_THAT(pipe.out, Catch::Contains("data 1 x tensor 2 x pipeline 4, 8 micro-batches") &&
                           Catch::Contains("stage 3: one micro-batch per GPU") &&
                           Catch::Contains("per GPU per micro-batch"));
  const auto describe = test::simrun("--describe gpu_node", dir);
  INFO(describe.out << describe.err);
  CHECK(describe.exit_code == 0);
  CHECK_THAT(describe.out, Catch::Contains("nvlink") && Catch::Contains("parallel"));
}

TEST_CASE("gpu_node: impossible node and parallel setups exit 2 with one line",
          "[e2e][gpu_node][errors]") {
  const std::string base = "base: " + presets() + "/hgx_h100_8.yaml\n";
  const std::string gpt = "workload: " + test::source_dir() + "/workloads/gpt3_175b.yaml\n";
  // Tensor parallelism that does not split the heads (12 heads over 8 GPUs).
  check_rejected(base + "system: {parallel: {tensor: 8}}\n" +
                     "workload:\n  layers:\n"
                     "    - {name: att, op: attention, heads: 12, seq_q: 64, seq_kv: 64, "
                     "head_dim: 64}\n",
                 "layer 'att'");
  // 9 GPUs on the node and 8-way tensor parallelism; degrees whose product is not the node.
  check_rejected(base + "system: {nvlink: {gpus: 9}, parallel: {tensor: 8}}\n" + gpt,
                 "system.parallel.tensor: tensor = 8 does not divide the node's 9 GPUs");
  check_rejected(base + "system: {parallel: {data: 4, tensor: 4}}\n" + gpt,
                 "system.parallel.data: data x tensor x pipeline = 4 x 4 x 1 = 16, but the node "
                 "has 8 GPUs");
  check_rejected(base + "system: {parallel: {tensor: 8, pipeline: 2}}\n" + gpt,
                 "system.parallel.pipeline: tensor x pipeline = 8 x 2 = 16 does not divide the "
                 "node's 8 GPUs");
  check_rejected(base + "system: {parallel: {tensor: 8, microbatches: 2}}\n" + gpt,
                 "system.parallel.microbatches: 2 micro-batches need pipeline stages");
  // Two micro-batches of one sequence (GPT-3's default batch 1).
  check_rejected(base + "system: {parallel: {tensor: 4, pipeline: 2, microbatches: 2}}\n" + gpt,
                 "system.parallel.microbatches: 2 micro-batches do not divide");
  // A collective over torus axes: a node has none.
  check_rejected(base +
                     "workload:\n  layers:\n    - {name: ar, op: all_reduce, bytes: 1MiB, "
                     "group: [x]}\n",
                 "layer 'ar': group: names torus axes");
  // A layer that does not fit a GPU: 96 GPT-3 MLP-up GEMMs over 8 GPUs hold 13.5 GiB each.
  check_rejected(base +
                     "system: {parallel: {tensor: 8}}\n"
                     "workload:\n  layers:\n"
                     "    - {name: up, m: 2048, n: 49152, k: 12288, repeat: 96}\n"
                     "    - {name: down, m: 2048, n: 12288, k: 49152, repeat: 96}\n"
                     "    - {name: up2, m: 2048, n: 49152, k: 12288, repeat: 96}\n"
                     "    - {name: down2, m: 2048, n: 12288, k: 49152, repeat: 96}\n"
                     "    - {name: up3, m: 2048, n: 49152, k: 12288, repeat: 96}\n"
                     "    - {name: down3, m: 2048, n: 12288, k: 49152, repeat: 96}\n",
                 "does not fit gpu0's HBM (every GPU of the 8-GPU node (data 1 x tensor 8) "
                 "holds the same)");
}

TEST_CASE("gpu_node: a GPT-3 175B decode block runs tensor-parallel 8 on HGX H100",
          "[e2e][gpu_node]") {
  TempDir dir;
  const auto r = run_one("base: " + presets() +
                             "/hgx_h100_8.yaml\n"
                             "system:\n  gpu: {device: {hbm: {model: bandwidth}}}\n"
                             "  parallel: {tensor: 8}\n"
                             "workload: {file: " +
                             test::source_dir() +
                             "/workloads/gpt3_175b.yaml, params: {tokens: 1, context: 2048}}\n",
                         dir, "gpt3");
  // Ten layers and the two all-reduces Megatron's row splits need.
  REQUIRE(r.layers.rows().size() == 12);
  double comm = 0;
  for (std::size_t l = 0; l < 12; ++l) {
    const std::string name = r.layers.get_string(l, "layer");
    const bool ar = name == "out_proj.all_reduce" || name == "mlp_down.all_reduce";
    INFO(name);
    CHECK((r.layers.get_number(l, "collective_time") > 0) == ar);
    if (!ar) continue;
    CHECK(r.layers.get_string(l - 1, "layer") == name.substr(0, name.find('.')));
    // The 1 x 12288 bf16 output of the row-split GEMM, summed over the 8 GPUs.
    CHECK(r.layers.get_number(l, "collective_bytes") == 12288.0 * 2);
    CHECK(r.layers.get_int(l, "group_size") == 8);
    CHECK(r.layers.get_number(l, "exposed_comm_time") ==
          Approx(r.layers.get_number(l, "collective_time")).epsilon(1e-9));
    comm += r.layers.get_number(l, "collective_time");
  }
  CHECK(r.metrics.number("collective_time") == Approx(comm).epsilon(1e-12));
  CHECK(r.metrics.number("collectives") == 2);
  CHECK(r.metrics.number("max_link_utilization") > 0);
  CHECK(r.metrics.number("time") > r.metrics.number("collective_time"));
  const auto links = std::find_if(r.units.begin(), r.units.end(),
                                  [](const stats::Table& t) { return t.name() == "nvlink_links"; });
  REQUIRE(links != r.units.end());
  REQUIRE(links->rows().size() == 16);
  for (std::size_t i = 0; i < 16; ++i) CHECK(links->get_number(i, "utilization") > 0);
}
