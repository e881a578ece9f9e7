// The SM config: presets reproduce the published per-GPU peaks, keys override presets, and bad
// configs are ConfigErrors naming the key with a fix.
#include <catch2/catch.hpp>

#include "models/gpu_sm/gpu_sm_config.h"
#include "tests/support/config_error.h"

using namespace systole;
using namespace systole::models;
using Catch::Matchers::Contains;

namespace {

GpuSmConfig load(const std::string& yaml) {
  return test::load_section<GpuSmConfig>(yaml, "t.yaml", "gpu_sm");
}

}  // namespace

TEST_CASE("gpu_sm presets reproduce the whitepaper peaks", "[gpu_sm][config]") {
  const GpuSmConfig a = a100_sxm4_sm();
  const GpuSmConfig h = h100_sxm5_sm();
  // A100: 108 SMs x 1024 FMA x 2 FLOP x 1.41 GHz = 312 TF fp16 (A100 whitepaper); 624 TOPS int8.
  CHECK(108.0 * static_cast<double>(a.tc_rate(TcType::kFp16)) * 2 * a.clock.value() ==
        Approx(312e12).epsilon(0.001));
  CHECK(108.0 * static_cast<double>(a.tc_rate(TcType::kInt8)) * 2 * a.clock.value() ==
        Approx(624e12).epsilon(0.001));
  CHECK(a.tc_rate(TcType::kFp8E4M3) == 0);
  // H100 SXM5: 132 SMs x 2048 FMA x 2 x 1.83 GHz = 989.4 TF bf16; fp8 twice that.
  CHECK(132.0 * static_cast<double>(h.tc_rate(TcType::kBf16)) * 2 * h.clock.value() ==
        Approx(989.4e12).epsilon(0.001));
  CHECK(h.tc_rate(TcType::kFp8E5M2) == 2 * h.tc_rate(TcType::kBf16));
  CHECK(a.smem_bytes_per_clock() == 128);
  CHECK(a.smem_per_sm.value() == 164u * 1024);
  CHECK(h.smem_per_block.value() == 227u * 1024);
  CHECK(a.arch == GpuArch::kAmpere);
  CHECK(h.arch == GpuArch::kHopper);
}

TEST_CASE("gpu_sm keys override the preset", "[gpu_sm][config]") {
  const GpuSmConfig c = load("preset: h100_sxm5\nclock: 1.98GHz\nmma_latency: 20\n");
  CHECK(c.clock.value() == Approx(1.98e9));
  CHECK(c.mma_latency == 20);
  CHECK(c.tc_fp8_fma == 4096);
  CHECK(load("{}").preset == GpuSmPreset::kA100Sxm4);
}

TEST_CASE("gpu_sm bad configs are ConfigErrors with the key and a fix", "[gpu_sm][config]") {
  SECTION("fp8 on Ampere") {
    try {
      load("preset: a100_sxm4\ntc_fp8_fma: 2048\n");
      FAIL("accepted fp8 on Ampere");
    } catch (const ConfigError& e) {
      CHECK(e.path() == "gpu_sm.tc_fp8_fma");
      CHECK_THAT(e.message(), Contains("no fp8") && Contains("arch: hopper"));
      CHECK(e.origin().line == 2);
    }
  }
  SECTION("zero sub-partitions") {
    try {
      load("sub_partitions: 0\n");
      FAIL("accepted zero sub-partitions");
    } catch (const ConfigError& e) {
      CHECK(e.path() == "gpu_sm.sub_partitions");
      CHECK_THAT(e.message(), Contains("at least one") && Contains("4"));
    }
  }
  SECTION("rates that do not split over the sub-partitions") {
    CHECK_THROWS_WITH(load("tc_fp16_fma: 1022\n"),
                      Contains("tc_fp16_fma") && Contains("multiple of 4"));
  }
  SECTION("per-block shared memory above the SM's") {
    CHECK_THROWS_WITH(load("smem_per_block: 164KiB\n"), Contains("smem_per_block"));
  }
  SECTION("unknown key with a suggestion") {
    CHECK_THROWS_WITH(load("mma_latncy: 3\n"), Contains("mma_latency"));
  }
  SECTION("unknown preset") { CHECK_THROWS_WITH(load("preset: a100\n"), Contains("a100_sxm4")); }
}
