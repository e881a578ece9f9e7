// What the power model is fed after a simulated pass (models/systems/gpu_device/
// gpu_device_settle.h): each kernel's simulated time less its launch and set-up as SM-bound
// cycles, and the HBM bytes its L2 moved; a kernel that ran slower than the mapper's estimate
// draws less power, so the board's clock under the cap comes out at least as high.
#include <catch2/catch.hpp>

#include <vector>

#include "models/systems/gpu_device/gpu_device_settle.h"
#include "tests/unit/workloads/gpu_device_fixture.h"

using namespace systole;
using namespace systole::models;

namespace {

workloads::Layer gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  workloads::Layer l;
  l.name = "g";
  l.op = workloads::LayerOp::kGemm;
  l.dtype = DataType::kBf16;
  l.m = m;
  l.n = n;
  l.k = k;
  return l;
}

/// One simulated run per kernel of `p`, each taking `sm_seconds` between its launch overhead
/// plus set-up and its end, and moving `sectors` sectors to and from HBM.
std::vector<GpuKernelRun> runs_of(const GpuDeviceConfig& d, const workloads::GpuProgram& p,
                                  double sm_seconds, std::uint64_t sectors) {
  std::vector<GpuKernelRun> out;
  double t = 0;
  for (const auto& k : p.kernels) {
    GpuKernelRun r;
    r.start_ps = t;
    const double fixed = (d.launch_overhead.value() + k.setup.value()) * 1e-12;
    r.end_ps = t + (fixed + sm_seconds) * 1e12;
    r.l2_after.sectors_fetched = sectors;
    r.l2_after.writeback_sectors = sectors / 4;
    t = r.end_ps + 1e6;
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("gpu_device power: a pass's simulated time and HBM bytes are what the law is fed",
          "[sc][gpu_device][power]") {
  const GpuDeviceConfig d = test::h100();
  const std::vector<workloads::Layer> layers{gemm(7808, 1856, 640)};
  const auto prog = workloads::compile_gpu(d, layers, {});
  REQUIRE(prog.kernels.size() == 1);
  const auto est = estimated_loads(d, prog);
  const auto sim = simulated_loads(d, prog, runs_of(d, prog, 40e-6, 1000000));
  REQUIRE(sim.size() == est.size());
  CHECK(sim[0].macs == est[0].macs);  // the same work, weighted the same
  CHECK(sim[0].macs == Approx(7808.0 * 1856 * 640));
  CHECK(sim[0].fixed_seconds == Approx(est[0].fixed_seconds));
  CHECK(sim[0].sm_cycles == Approx(40e-6 * d.gpu_sm.clock.value()));
  CHECK(sim[0].hbm_bytes == Approx(1250000.0 * static_cast<double>(d.l2.sector.value())));
}

TEST_CASE("gpu_device power: a pass slower than the estimate settles at a higher clock",
          "[sc][gpu_device][power]") {
  const GpuDeviceConfig d = test::h100();
  const std::vector<workloads::Layer> layers{gemm(8192, 8192, 8192)};
  const auto prog = workloads::compile_gpu(d, layers, {});
  const double f_est = power_limited_clock(d, estimated_loads(d, prog));
  REQUIRE(f_est < d.boost_clock.value());  // power-limited by the estimate
  // As the estimate (its main-loop cycles at this clock): the same clock.
  const double est_seconds = prog.kernels[0].gemm.compute_cycles / d.gpu_sm.clock.value();
  const double sectors = static_cast<double>(prog.kernels[0].gemm.hbm_bytes) /
                         static_cast<double>(d.l2.sector.value()) / 1.25;
  const auto same =
      simulated_loads(d, prog, runs_of(d, prog, est_seconds, static_cast<std::uint64_t>(sectors)));
  CHECK(std::abs(power_limited_clock(d, same) - f_est) <= 15e6);
  // Twice as long (half the tensor activity): a clock above the estimate's, at most boost.
  const auto slow = simulated_loads(
      d, prog, runs_of(d, prog, 2 * est_seconds, static_cast<std::uint64_t>(sectors)));
  const double f_slow = power_limited_clock(d, slow);
  CHECK(f_slow > f_est + 100e6);
  CHECK(f_slow <= d.boost_clock.value());
}
