// The power-limited SM clock (models/systems/gpu_device/gpu_power.h): the law (static + MAC
// energy scaling with (f/boost)^2 x MAC rate + HBM energy x byte rate), the choice of the
// highest 15 MHz step under the TDP, and the H100 preset reproducing its calibration workload.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/systems/gpu_device/gpu_power.h"
#include "tests/unit/workloads/gpu_device_fixture.h"

using namespace systole;
using models::KernelLoad;

namespace {

/// A compute-bound load: `macs` at the whole device's bf16 rate (one clock cycle per
/// sms x tc_bf16_fma MACs), nothing else.
KernelLoad compute_bound(const models::GpuDeviceConfig& d, double macs) {
  KernelLoad l;
  l.macs = macs;
  l.sm_cycles = macs / static_cast<double>(d.sms * d.gpu_sm.tc_bf16_fma);
  return l;
}

}  // namespace

TEST_CASE("Power model off: the SMs run at gpu_sm.clock", "[unit][gpu_device][power]") {
  auto d = test::h100();
  d.boost_clock = Hz(0);
  CHECK(models::power_limited_clock(d, {compute_bound(d, 1e12)}) == d.gpu_sm.clock.value());
}

TEST_CASE("Dynamic tensor power grows with f^3 in compute-bound work, HBM power with bytes/s",
          "[unit][gpu_device][power]") {
  auto d = test::h100();
  d.static_watts = 0;
  d.hbm_byte_energy_pj = 0;
  const std::vector<KernelLoad> loads = {compute_bound(d, 1e12)};
  const double f = d.boost_clock.value();
  CHECK(models::board_power(d, loads, f) / models::board_power(d, loads, f / 2) ==
        Approx(8).epsilon(1e-9));
  // Memory-bound: time is bytes / bandwidth at any clock, so HBM power does not move with f.
  d.mac_energy_pj = 0;
  d.hbm_byte_energy_pj = 32;
  KernelLoad m;
  m.hbm_bytes = 1e9;
  const double p = models::board_power(d, {m}, f);
  CHECK(p == Approx(32e-12 * d.hbm.bandwidth.value()));
  CHECK(models::board_power(d, {m}, f / 2) == Approx(p));
}

TEST_CASE("The clock is the highest 15 MHz step whose power fits the TDP",
          "[unit][gpu_device][power]") {
  const auto d = test::h100();
  const std::vector<KernelLoad> big = {compute_bound(d, 1e13)};
  const double f = models::power_limited_clock(d, big);
  CHECK(f < d.boost_clock.value());
  CHECK(std::fmod(f, 15e6) == Approx(0).margin(1));
  CHECK(models::board_power(d, big, f) <= d.tdp_watts);
  CHECK(models::board_power(d, big, f + 15e6) > d.tdp_watts);
  // A light load (a tenth of the tensor rate: long fixed time) runs at the boost clock.
  KernelLoad light = compute_bound(d, 1e12);
  light.fixed_seconds = 9 * light.sm_cycles / d.boost_clock.value();
  CHECK(models::power_limited_clock(d, {light}) == Approx(d.boost_clock.value()));
}

TEST_CASE("H100 preset: its calibration workload lands at the measured power and clock",
          "[unit][gpu_device][power]") {
  // configs/presets/h100_sxm5.yaml: 677 TFLOP/s of 8192^3 at a median 1425 MHz, 685.8 W mean.
  const auto d = test::h100();
  KernelLoad l;
  const double macs = 8192.0 * 8192 * 8192;
  l.macs = macs;
  l.hbm_bytes = 3 * 8192.0 * 8192 * 2;     // compulsory
  l.sm_cycles = macs / 338.5e12 * 1425e6;  // 338.5 T MAC/s at 1425 MHz
  CHECK(models::board_power(d, {l}, 1425e6) == Approx(685.8).epsilon(0.01));
  CHECK(models::power_limited_clock(d, {l}) == Approx(1425e6).margin(30e6));
}
