// H200 SXM presets (configs/presets/h200_sxm.yaml, configs/presets/memory/h200_141gb_hbm3e.yaml):
// the published numbers come out of the files (132 SMs, H100's tensor peaks, 60 MiB L2, six HBM3e
// stacks at 4.8 TB/s, 700 W), and the HBM timings are the HBM3 bin's nanoseconds at H200's clock.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/hbm/hbm_address_map.h"
#include "tests/unit/workloads/gpu_device_fixture.h"

using namespace systole;
using models::HbmConfig;
using models::TcType;

TEST_CASE("H200 SXM preset: 132 SMs, H100's peaks, 60 MiB L2, 6 x HBM3e at 4.8 TB/s, 700 W",
          "[unit][gpu_device][config][h200]") {
  const auto d = test::load_gpu_device("h200_sxm.yaml");
  const auto h100 = test::h100();
  CHECK(d.sms == 132);
  CHECK(d.gpu_sm.arch == models::GpuArch::kHopper);
  CHECK(d.gpu_sm.clock.value() == h100.gpu_sm.clock.value());
  CHECK(2 * d.peak_fma_per_second(TcType::kBf16) == Approx(989.4e12).epsilon(0.001));
  CHECK(d.l2.capacity.value() == 62914560u);  // PyTorch's L2_cache_size on the lent H200
  CHECK(d.l2.slices() == 120);
  CHECK(d.l2.sets_per_slice() == h100.l2.sets_per_slice());
  CHECK(d.l2.hit_latency == h100.l2.hit_latency);
  CHECK(d.l2.far_penalty == h100.l2.far_penalty);
  // The crossbar and ports measured on an H200 (l2bw.cu), shared with the H100 preset; the
  // slices stay above the crossbar, so it is the crossbar that bounds all-SM reads.
  CHECK(d.l2.xbar_bandwidth == h100.l2.xbar_bandwidth);
  CHECK(d.l2.port_bandwidth == h100.l2.port_bandwidth);
  CHECK(d.l2.xbar_bandwidth < d.l2.slices_per_partition * d.l2.slice_bandwidth);
  CHECK(d.hbm.preset == models::HbmPreset::kHbm3e);
  CHECK(d.hbm.stacks == 6);
  CHECK(d.hbm.total_channels() == 96);
  CHECK(d.hbm.bandwidth.value() == Approx(4.8e12).epsilon(1e-9));
  CHECK(d.hbm.organisation_peak() == Approx(4.8e12).epsilon(1e-9));
  CHECK(d.hbm.data_rate == Approx(6250));
  CHECK(d.hbm.latency.value() == h100.hbm.latency.value());
  CHECK(models::HbmAddressMap(d.hbm).capacity() == 192ull << 30);
  CHECK(d.tdp_watts == 700);
}

TEST_CASE("H200 HBM3e timings are the HBM3 6.4 Gb/s bin's nanoseconds at 6.25 Gb/s",
          "[unit][hbm][gpu][h200]") {
  const HbmConfig h = test::load_gpu_device("h200_sxm.yaml").hbm;
  const HbmConfig bin = HbmConfig::from_preset(models::HbmPreset::kHbm3);
  const HbmConfig e = HbmConfig::from_preset(models::HbmPreset::kHbm3e);
  CHECK(h.tck_ps() == Approx(640));
  const auto at = [&](const HbmConfig& from, std::int64_t cycles) {
    return static_cast<std::int64_t>(
        std::ceil(static_cast<double>(cycles) * from.tck_ps() / h.tck_ps() - 1e-9));
  };
  for (const auto m :
       {&HbmConfig::t_cl, &HbmConfig::t_cwl, &HbmConfig::t_rcd_rd, &HbmConfig::t_rcd_wr,
        &HbmConfig::t_rp, &HbmConfig::t_ras, &HbmConfig::t_rc, &HbmConfig::t_wr, &HbmConfig::t_rtp,
        &HbmConfig::t_ccd_l, &HbmConfig::t_rrd_s, &HbmConfig::t_rrd_l, &HbmConfig::t_faw,
        &HbmConfig::t_wtr_s, &HbmConfig::t_wtr_l}) {
    INFO("HBM3 bin " << bin.*m << " cycles");
    CHECK(h.*m == std::max(at(bin, bin.*m), m == &HbmConfig::t_rc ? h.t_ras + h.t_rp : 0));
  }
  CHECK(h.t_ccd_s == bin.t_ccd_s);                                   // one burst
  CHECK(h.t_rfc == at(e, e.t_rfc));                                  // hbm3e's 450 ns (24 Gb dies)
  CHECK(h.t_refi == static_cast<std::int64_t>(3.9e6 / h.tck_ps()));  // 3.9 us, rounded down
  CHECK(h.t_btr == bin.t_btr);
}
