// End to end: simrun runs tpu_pod experiments. Data parallelism alone gives each chip the
// tpu_chip run of its share, exactly; the shipped pod experiments validate; impossible slices
// and parallel setups are one clear error, exit 2, no output.
#include <catch2/catch.hpp>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
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

stats::PointResult run_one(const std::string& yaml, TempDir& dir, const std::string& name) {
  dir.write(name + ".yaml", yaml);
  const auto r = test::simrun(name + ".yaml -o " + name + ".h5 -q", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file(name + ".h5"));
  REQUIRE(points.size() == 1);
  REQUIRE(points[0].ok());
  return points[0];
}

void check_rejected(const std::string& yaml, const std::string& expected) {
  TempDir dir;
  dir.write("bad.yaml", yaml);
  const auto r = test::simrun("bad.yaml -o out.h5", dir);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("simrun: error: ") && Catch::Contains(expected));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5")));
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
  for (const char* cfg : {"tpuv4_pod.yaml", "tpuv4_allreduce_sweep.yaml"}) {
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
