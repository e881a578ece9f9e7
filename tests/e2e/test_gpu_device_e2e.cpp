// End to end through simrun on the SystemC GPU device (system kind gpu_device): every layer kind
// the GPU compiler lowers runs on both presets, each layer's simulated cycles respect its
// roofline bounds (never faster than the tensor peak or than its compulsory bytes at peak HBM
// bandwidth), HBM traffic covers what must come from memory, rates stay in [0, 1]; random GEMM
// shapes (edge tiles, split-K, small and skinny) never deadlock; bad GPU configs and workloads
// are one clear error with exit code 2.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

std::string preset(const std::string& gpu) {
  return "base: " + test::source_dir() + "/configs/presets/" + gpu + ".yaml\n";
}

stats::PointResult run_one(TempDir& dir, const std::string& gpu, const std::string& layers,
                           const std::string& extra = "") {
  dir.write("w.yaml", preset(gpu) + extra + "workload:\n  layers:\n" + layers);
  const auto r = test::simrun("w.yaml -q -o out.h5", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 1);
  REQUIRE(points[0].ok());
  return points[0];
}

void check_bounds(const stats::PointResult& p) {
  const auto& l = p.layers;
  for (size_t i = 0; i < l.rows().size(); ++i) {
    INFO("layer " << l.get_string(i, "layer"));
    const double cycles = l.get_number(i, "cycles");
    CHECK(cycles >= l.get_number(i, "compute_bound_cycles"));
    CHECK(cycles >= l.get_number(i, "hbm_bound_cycles") * 0.999);
    CHECK(l.get_number(i, "roofline_fraction") <= 1.0);
    CHECK(l.get_number(i, "mac_utilization") <= 1.0);
    CHECK(l.get_number(i, "tensor_utilization") <= 1.0);
    const double smem = l.get_number(i, "smem_utilization");
    CHECK((smem >= 0 && smem <= 1.0));
    const double hit = l.get_number(i, "l2_hit_rate");
    CHECK((hit >= 0 && hit <= 1));
  }
}

}  // namespace

TEST_CASE("gpu_device runs GEMM, conv, attention and vector layers within their bounds",
          "[e2e][gpu]") {
  const std::string layers =
      "    - {name: proj, op: gemm, m: 1024, n: 1024, k: 512}\n"
      "    - {name: act, op: gelu, rows: 1024, cols: 1024}\n"
      "    - {name: norm, op: layernorm, rows: 1024, cols: 1024}\n"
      "    - {name: attn, op: attention, batch: 2, heads: 8, seq_q: 256, head_dim: 64}\n"
      "    - {name: conv, op: conv2d, n: 2, h: 28, w: 28, c: 64, k: 64, r: 3, s: 3, pad: 1}\n"
      "    - {name: dw, op: conv2d, n: 2, h: 28, w: 28, c: 64, k: 64, r: 3, s: 3, pad: 1, "
      "groups: 64}\n"
      "    - {name: skinny, op: gemm, m: 8, n: 4096, k: 4096}\n";
  for (const char* gpu : {"h100_sxm5", "a100_sxm4_80gb"}) {
    INFO(gpu);
    TempDir dir;
    const auto p = run_one(dir, gpu, layers);
    REQUIRE(p.layers.rows().size() == 7);
    check_bounds(p);
    // The first GEMM's operands and result must cross HBM once at least (cold L2).
    const auto& l = p.layers;
    CHECK(l.get_number(0, "hbm_bytes") >= (1024.0 * 512 + 512 * 1024) * 2);
    CHECK(l.get_int(0, "ctas_per_sm") >= 1);
    // The skinny decode-like GEMM streams its 32 MiB of weights: memory bound.
    CHECK(l.get_string(6, "bound") == "hbm");
    CHECK(l.get_number(6, "hbm_bytes") >= 4096.0 * 4096 * 2);
  }
}

TEST_CASE("gpu_device: random GEMM shapes finish within their bounds", "[e2e][gpu]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dim(1, 1500);
  std::string layers;
  for (int i = 0; i < 8; ++i)
    layers += "    - {name: g" + std::to_string(i) + ", op: gemm, m: " + std::to_string(dim(rng)) +
              ", n: " + std::to_string(dim(rng)) + ", k: " + std::to_string(dim(rng)) + "}\n";
  for (const char* gpu : {"h100_sxm5", "a100_sxm4_80gb"}) {
    INFO(gpu << "\n" << layers);
    TempDir dir;
    check_bounds(run_one(dir, gpu, layers));
  }
}

TEST_CASE("gpu_device: the bandwidth HBM model runs the same workload", "[e2e][gpu]") {
  TempDir dir;
  const auto p = run_one(dir, "h100_sxm5", "    - {name: g, op: gemm, m: 2048, n: 2048, k: 2048}\n",
                         "system: {device: {hbm: {model: bandwidth}}}\n");
  check_bounds(p);
}

TEST_CASE("gpu_device: bad GPU configs and workloads are one clear error, exit 2",
          "[e2e][gpu][errors]") {
  struct Case {
    std::string gpu, layer, option, expect;
  };
  const std::vector<Case> cases = {
      {"a100_sxm4_80gb", "{name: g8, op: gemm, m: 256, n: 256, k: 256, dtype: fp8_e4m3}", "",
       "fp8 needs an H100-class"},
      {"h100_sxm5", "{name: g, op: gemm, m: 256, n: 256, k: 256}", "-p system.device.sms=0",
       "system.device.sms: expected an integer in [1, 4096]"},
      {"h100_sxm5", "{name: g, op: gemm, m: 256, n: 256, k: 256}", "-p system.mapping.tile_m=512",
       "no CUTLASS tile fits the SM's shared memory"},
      {"h100_sxm5", "{name: g, op: gemm, m: 256, n: 256, k: 256}", "-p system.mapping.cluster_m=3",
       "does not divide the grid's tile rows"},
      {"h100_sxm5", "{name: g, op: gemm, m: 1024, n: 256, k: 256}", "-p system.mapping.cluster_m=5",
       "system.mapping.cluster_m: expected an integer in [0, 4]"},
      {"a100_sxm4_80gb", "{name: g, op: gemm, m: 1024, n: 256, k: 256}",
       "-p system.mapping.cluster_m=2", "thread-block clusters need an H100-class"},
      {"h100_sxm5", "{name: g, op: gemm, m: 256, n: 256, k: 256}",
       "-p system.device.gpu_sm.smem_per_block=1KiB", "no CUTLASS tile fits"},
  };
  for (const auto& c : cases) {
    INFO(c.gpu << " " << c.layer << " " << c.option);
    TempDir dir;
    dir.write("w.yaml", preset(c.gpu) + "workload:\n  layers:\n    - " + c.layer + "\n");
    const auto r = test::simrun("w.yaml -q -o out.h5 " + c.option, dir);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expect) != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("out.h5")));
  }
}
