// GPU device presets: the published chip-level numbers come out of the files (SMs, peaks, L2,
// HBM, TDP), and bad device configs are ConfigErrors naming the key and the fix.
#include <catch2/catch.hpp>

#include "tests/support/config_error.h"
#include "tests/unit/workloads/gpu_device_fixture.h"

using namespace systole;
using models::TcType;

namespace {

std::string error(const std::string& file, const std::string& overrides) {
  return test::config_error([&] { test::load_gpu_device(file, overrides); });
}

}  // namespace

TEST_CASE("A100 SXM4 80GB preset: 108 SMs, 312 TF fp16/bf16, 40 MiB L2, 2039 GB/s, 400 W",
          "[unit][gpu_device][config]") {
  const auto d = test::a100();
  CHECK(d.sms == 108);
  CHECK(d.gpu_sm.arch == models::GpuArch::kAmpere);
  CHECK(d.gpu_sm.clock.value() == Approx(1410e6));
  // 108 SMs x 1024 FMA x 2 x 1.41 GHz = 311.9 TF (A100 whitepaper: 312 TF).
  CHECK(2 * d.peak_fma_per_second(TcType::kBf16) == Approx(312e12).epsilon(0.001));
  CHECK(d.peak_fma_per_second(TcType::kFp8E4M3) == 0);
  CHECK(d.l2.capacity.value() == 40ull << 20);
  CHECK(d.l2_bytes_per_cycle() == 5120);  // A100 whitepaper §4.6.3
  CHECK(d.hbm.bandwidth.value() == Approx(2039e9).epsilon(0.002));
  CHECK(d.hbm.stacks == 5);
  CHECK(d.tdp_watts == 400);
  CHECK(d.l2.clock.value() == d.gpu_sm.clock.value());
}

TEST_CASE("H100 SXM5 preset: 132 SMs, 989.4 TF bf16 at 1830 MHz, 50 MiB L2, 3.35 TB/s, 700 W",
          "[unit][gpu_device][config]") {
  const auto d = test::h100();
  CHECK(d.sms == 132);
  CHECK(d.gpu_sm.arch == models::GpuArch::kHopper);
  // 132 x 2048 FMA x 2 x 1.83 GHz = 989.4 TF; fp8 twice that.
  CHECK(2 * d.peak_fma_per_second(TcType::kBf16) == Approx(989.4e12).epsilon(0.001));
  CHECK(2 * d.peak_fma_per_second(TcType::kFp8E4M3) == Approx(1978.9e12).epsilon(0.001));
  CHECK(d.l2.capacity.value() == 50ull << 20);
  CHECK(d.l2.slices() == 100);
  // The L2 roofline is its narrowest stage summed: the two crossbars (2 x 2520, measured on an
  // H200), not the slices (6400); with 8 SMs, their ports (8 x 103).
  CHECK(d.l2_bytes_per_cycle() == 5040);
  CHECK(test::load_gpu_device("h100_sxm5.yaml", "{sms: 8}").l2_bytes_per_cycle() == 824);
  CHECK(d.hbm.bandwidth.value() == Approx(3.35e12).epsilon(0.002));
  CHECK(d.tdp_watts == 700);
  CHECK(d.cycles(d.launch_overhead) == Approx(915));  // 0.5 us x 1830 MHz
}

TEST_CASE("GPU device config errors name the key and the fix", "[unit][gpu_device][config]") {
  const char* a100 = "a100_sxm4_80gb.yaml";
  CHECK_THAT(error(a100, "{sms: 0}"), Catch::Contains("system.device.sms"));
  CHECK_THAT(error(a100, "{gpu_sm: {tc_fp8_fma: 4096}}"),
             Catch::Contains("system.device.gpu_sm.tc_fp8_fma") && Catch::Contains("no fp8") &&
                 Catch::Contains("arch: hopper"));
  CHECK_THAT(error(a100, "{l2: {clock: 1200MHz}}"),
             Catch::Contains("system.device.l2.clock") && Catch::Contains("set l2.clock to"));
  CHECK_THAT(error("h100_sxm5.yaml", "{gpu_sm: {clock: 1980MHz}}"),
             Catch::Contains("system.device.l2.clock"));
  CHECK_THAT(error(a100, "{smss: 100}"), Catch::Contains("sms"));
  CHECK_THAT(error(a100, "{gpu_sm: {tc_fp16_fma: 0, tc_bf16_fma: 0}}"),
             Catch::Contains("gpu_sm.tc_bf16_fma"));
  CHECK_THAT(error(a100, "{launch_overhead: -1us}"), Catch::Contains("launch_overhead"));
  CHECK(error(a100, "{}") == "<no error>");
}
