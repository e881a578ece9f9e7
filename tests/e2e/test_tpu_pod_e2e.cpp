// End to end: simrun runs tpu_pod experiments. Data parallelism alone gives each chip the
// tpu_chip run of its share, exactly; the shipped pod experiments validate; impossible slices
// and parallel setups are one clear error, exit 2, no output.
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

const char* kGemms =
    "    - {name: a, batch: BATCH, m: 256, n: 512, k: 384}\n"
    "    - {name: b, batch: BATCH, m: 256, n: 1024, k: 512}\n"
    "    - {name: c, op: gelu, rows: BATCH * 256, cols: 1024}\n";

std::string gemms(int batch) {
  std::string s = kGemms;
  for (std::size_t at; (at = s.find("BATCH")) != std::string::npos;)
    s.replace(at, 5, std::to_string(batch));
  return "workload:\n  layers:\n" + s;
}

}  // namespace

TEST_CASE("tpu_pod: data parallel with tensor = 1 equals tpu_chip exactly", "[e2e][pod]") {
  TempDir dir;
  const std::string hbm = "    hbm: {model: bandwidth}\n";
  const auto chip = run_one(
      "base: " + presets() + "/tpuv4_chip.yaml\nsystem:\n  chip:\n" + hbm + gemms(1), dir, "chip");
  const auto pod = run_one("base: " + presets() +
                               "/tpuv4_slice.yaml\nsystem:\n  ici: {shape: \"2x2\", topology: "
                               "mesh}\n  chip:\n" +
                               hbm + gemms(4),
                           dir, "pod");
  REQUIRE(pod.layers.rows().size() == chip.layers.rows().size());
  for (std::size_t l = 0; l < chip.layers.rows().size(); ++l) {
    INFO("layer " << chip.layers.get_string(l, "layer"));
    CHECK(pod.layers.get_int(l, "cycles") == chip.layers.get_int(l, "cycles"));
    CHECK(pod.layers.get_int(l, "hbm_bytes") == chip.layers.get_int(l, "hbm_bytes"));
    CHECK(pod.layers.get_number(l, "collective_time") == 0);
  }
  CHECK(pod.metrics.number("total_cycles") == chip.metrics.number("total_cycles"));
}

TEST_CASE("tpu_pod: the shipped experiments and preset validate", "[e2e][pod]") {
  TempDir dir;
  for (const char* cfg :
       {"tpuv4_pod.yaml", "tpuv4_allreduce_sweep.yaml", "tpuv4_pod_pipeline.yaml"}) {
    const auto r = test::simrun(test::source_dir() + "/configs/" + cfg + " --validate", dir);
    INFO(cfg << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
  }
  const auto plan = test::simrun(
      test::source_dir() + "/configs/tpuv4_pod.yaml --plan -p system.ici.shape=8", dir);
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit_code == 0);
  CHECK_THAT(plan.out, Catch::Contains("out_proj.all_reduce *") &&
                           Catch::Contains("mlp_down.all_reduce *") &&
                           Catch::Contains("column n/8") && Catch::Contains("row k/8") &&
                           Catch::Contains("no gradient all-reduce"));
}

TEST_CASE("tpu_pod: impossible slices and parallel setups exit 2 with one line",
          "[e2e][pod][errors]") {
  const std::string base = "base: " + presets() + "/tpuv4_slice.yaml\n";
  const std::string gpt = "workload: " + test::source_dir() + "/workloads/gpt3_175b.yaml\n";
  // A dimension of 0; a slice larger than the pod.
  check_rejected(base + "system: {ici: {shape: \"4x0x4\"}}\n" + gpt,
                 "system.ici.shape: dimension 1 of '4x0x4' is 0");
  check_rejected(base + "system: {ici: {shape: \"32x16x16\"}}\n" + gpt,
                 "system.ici.shape: a 32x16x16 slice has 8192 chips, more than the pod's 4096");
  // Degrees whose product is not the chip count; a tensor group that is no run of whole axes.
  check_rejected(base + "system: {parallel: {data: 4, tensor: 4}}\n" + gpt,
                 "system.parallel.data: data x tensor x pipeline = 4 x 4 x 1 = 16, but the "
                 "4x4x4 slice has 64 chips");
  check_rejected(base + "system: {parallel: {tensor: 3}}\n" + gpt,
                 "system.parallel.tensor: tensor x pipeline = 3 does not divide the 64 chips");
  check_rejected(base + "system: {parallel: {tensor: 8}}\n" + gpt,
                 "system.parallel.tensor: the tensor group (8 chips) must span whole torus axes");
  // A layer that does not fit a chip: 96 MLPs of GPT-3 175B over 8 chips hold 14.5 GB of
  // weights per chip per GEMM; the third GEMM's crosses the 32 GiB HBM.
  check_rejected(base +
                     "system: {ici: {shape: \"8\"}, parallel: {tensor: 8}}\n"
                     "workload:\n  layers:\n"
                     "    - {name: up, m: 2048, n: 49152, k: 12288, repeat: 96}\n"
                     "    - {name: down, m: 2048, n: 12288, k: 49152, repeat: 96}\n"
                     "    - {name: up2, m: 2048, n: 49152, k: 12288, repeat: 96}\n",
                 "layer 'up2' does not fit chip0's HBM (every chip of the 8 slice (8 chips, data "
                 "1 x tensor 8) holds the same): weights 40.5 GiB + KV cache 0 B of the layers "
                 "up to it, + its activations 72 MiB = 40.6 GiB > 32 GiB");
}

TEST_CASE("tpu_pod pipeline: 2 stages x tensor 4 on a 2x2x2 slice validate, plan and run",
          "[e2e][pod][pipeline]") {
  TempDir dir;
  const std::string cfg =
      "base: " + presets() +
      "/tpuv4_slice.yaml\n"
      "system:\n"
      "  ici: {shape: \"2x2x2\", topology: mesh}\n"
      "  chip: {hbm: {model: bandwidth}}\n"
      "  parallel: {tensor: 4, pipeline: 2, microbatches: 4}\n"
      "workload: {file: " +
      test::source_dir() +
      "/workloads/gpt3_175b.yaml, params: {batch: 4, tokens: 64, context: 64}}\n";
  dir.write("pp.yaml", cfg);
  const auto v = test::simrun("pp.yaml --validate", dir);
  INFO(v.out << v.err);
  REQUIRE(v.exit_code == 0);
  const auto plan = test::simrun("pp.yaml --plan", dir);
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit_code == 0);
  CHECK_THAT(plan.out, Catch::Contains("data 1 x tensor 4 x pipeline 2, 4 micro-batches") &&
                           Catch::Contains("pipeline stages along axes z") &&
                           Catch::Contains("attn_norm..out_proj") &&
                           Catch::Contains("attn_residual..mlp_residual") &&
                           Catch::Contains("stage 1: one micro-batch per chip") &&
                           Catch::Contains("chip 0 -> 4") && Catch::Contains("(4 pairs)") &&
                           Catch::Contains("(P-1)/(M+P-1) = 0.200"));
  const auto r = test::simrun("pp.yaml -o pp.h5", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("pipeline bubble"));
  const auto points = stats::read_points(dir.file("pp.h5"));
  REQUIRE(points.size() == 1);
  const auto& p = points[0];
  REQUIRE(p.ok());
  CHECK(p.metrics.number("pipeline_bubble") > 0);
  CHECK(p.metrics.number("pipeline_bubble_formula") == Approx(0.2));
  // Stage 0 ends with out_proj's all-reduce: each chip sends its whole output, one micro-batch
  // (1 sequence x 64 tokens x 12288 bf16) at a time, 4 times.
  CHECK(p.metrics.number("p2p_bytes") == 4.0 * 64 * 12288 * 2);
  const stats::Table* st = nullptr;
  for (const auto& t : p.units)
    if (t.name() == "pipeline_stages") st = &t;
  REQUIRE(st != nullptr);
  REQUIRE(st->rows().size() == 2);
  // The layers table is the last stage's chip: 4 micro-batches of its layers.
  CHECK(p.layers.get_string(0, "layer") == "mb0.attn_residual");
}

TEST_CASE("tpu_pod pipeline: pipeline 1 is today's run exactly", "[e2e][pod][pipeline]") {
  TempDir dir;
  const std::string head = "base: " + presets() +
                           "/tpuv4_slice.yaml\nsystem:\n  ici: {shape: \"2x2\", topology: "
                           "mesh}\n  chip: {hbm: {model: bandwidth}}\n";
  const auto plain = run_one(head + "  parallel: {tensor: 2}\n" + gemms(4), dir, "plain");
  const auto one = run_one(
      head + "  parallel: {tensor: 2, pipeline: 1, microbatches: 1}\n" + gemms(4), dir, "one");
  CHECK(one.metrics.number("total_cycles") == plain.metrics.number("total_cycles"));
  for (const auto& c : one.metrics.columns()) CHECK(c.name != "pipeline_bubble");
}

TEST_CASE("tpu_pod pipeline: impossible pipelines exit 2 with one line", "[e2e][pod][errors]") {
  const std::string base = "base: " + presets() + "/tpuv4_slice.yaml\n";
  const std::string gpt = "workload: {file: " + test::source_dir() +
                          "/workloads/gpt3_175b.yaml, params: {batch: 4, tokens: 64, context: "
                          "64}}\n";
  check_rejected(base +
                     "system: {ici: {shape: \"2x2x2\"}, parallel: {tensor: 4, pipeline: 2, "
                     "microbatches: 3}}\n" +
                     gpt,
                 "system.parallel.microbatches: 3 micro-batches do not divide each "
                 "data-parallel replica's batch");
  check_rejected(base +
                     "system: {ici: {shape: \"2x2x2\"}, parallel: {tensor: 4, microbatches: "
                     "2}}\n" +
                     gpt,
                 "system.parallel.microbatches: 2 micro-batches need pipeline stages");
  check_rejected(
      base + "system: {ici: {shape: \"4x4\"}, parallel: {tensor: 4, pipeline: 2}}\n" + gpt,
      "system.parallel.pipeline: the pipeline stages (2) must span whole torus axes");
  check_rejected(base +
                     "system: {ici: {shape: \"2x2x2\"}, parallel: {tensor: 4, pipeline: 2}}\n"
                     "workload:\n  layers:\n    - {name: only, m: 64, n: 64, k: 64}\n",
                 "2 pipeline stages need at least 2 layers (a stage is never empty); the "
                 "workload has 1");
  // A stage that does not fit: 96 GPT-3 MLP-ups (116 GB of weights) on one chip per stage.
  check_rejected(base +
                     "system: {ici: {shape: \"2\"}, parallel: {pipeline: 2}}\n"
                     "workload:\n  layers:\n"
                     "    - {name: small, m: 64, n: 64, k: 64}\n"
                     "    - {name: up, m: 64, n: 49152, k: 12288, repeat: 96}\n",
                 "pipeline stage 1 does not fit chip 1's HBM");
}
