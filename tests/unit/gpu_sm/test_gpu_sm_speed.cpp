// Speed of the two SM models on realistic GEMM main loops (a benchmark, hidden from the default
// run: `gpu_sm_unit_tests "[bench]"`). Prints wall seconds, simulated cycles per second and the
// tensor-pipe utilisation both models agree on.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "models/gpu_sm/gpu_sm_tile_model.h"
#include "models/gpu_sm/gpu_sm_warp_model.h"

using namespace systole;
using namespace systole::models;

namespace {

GemmLaunch grid(const GemmCtaTile& t, std::int64_t m, std::int64_t n, std::int64_t k, int sms) {
  GemmLaunch l;
  l.tile = t;
  l.per_sm.assign(static_cast<size_t>(sms), {});
  std::int64_t id = 0;
  for (std::int64_t m0 = 0; m0 < m; m0 += t.bm)
    for (std::int64_t n0 = 0; n0 < n; n0 += t.bn, ++id)
      l.per_sm[static_cast<size_t>(id % sms)].push_back(
          CtaWork{id, m0, n0, std::min(t.bm, m - m0), std::min(t.bn, n - n0), 0, k});
  return l;
}

void bench(const char* name, const GpuSmConfig& c, const GemmLaunch& l, double bw) {
  using clock = std::chrono::steady_clock;
  const int sms = static_cast<int>(l.per_sm.size());
  LatencyBandwidthPort p1(sms, bw, 0, 500), p2(sms, bw, 0, 500);
  const auto t0 = clock::now();
  const GemmRun ref = GpuSmWarpModel(c, p1).run(l);
  const auto t1 = clock::now();
  GemmRun fast;
  const int reps = 20;
  for (int i = 0; i < reps; ++i) {
    LatencyBandwidthPort p(sms, bw, 0, 500);
    fast = GpuSmTileModel(c, p).run(l);
  }
  const auto t2 = clock::now();
  REQUIRE(fast.ctas == ref.ctas);
  const double rs = std::chrono::duration<double>(t1 - t0).count();
  const double fs = std::chrono::duration<double>(t2 - t1).count() / reps;
  const double util =
      static_cast<double>(ref.sms[0].tensor_busy) /
      static_cast<double>(ref.cycles * static_cast<std::uint64_t>(c.sub_partitions));
  std::cout << fmt::format(
      "{}: {} cycles on {} SMs, {} CTAs resident, tensor pipes {:.1f}% busy (SM 0); warp-level "
      "{:.3f} s ({:.3g} cycles/s), tile-level {:.5f} s ({:.3g} cycles/s), {:.0f}x\n",
      name, ref.cycles, sms, ref.resident, 100 * util, rs, static_cast<double>(ref.cycles) / rs, fs,
      static_cast<double>(ref.cycles) / fs, rs / fs);
}

/// CUTLASS sm80 128x128x32, 2x2 warps of 64x64, 3 stages.
GemmCtaTile a100_tile() {
  GemmCtaTile a;
  a.bm = a.bn = 128;
  a.bk = 32;
  a.stages = 3;
  return a;
}

/// CUTLASS sm90 128x128x64, two consumer warpgroups, 4 stages.
GemmCtaTile h100_tile() {
  GemmCtaTile h;
  h.bm = h.bn = 128;
  h.bk = 64;
  h.stages = 4;
  h.warps_m = 2;
  h.warps_n = 1;
  h.instr = MmaInstr::kWgmma;
  h.copy = CopyEngine::kTma;
  h.regs_per_thread = 168;
  return h;
}

/// Cycles of the tile-level model with one assumption changed.
std::uint64_t cycles_with(GpuSmConfig c, const GemmLaunch& l, double bw, std::int64_t mma_lat,
                          std::int64_t wgmma_lat) {
  c.mma_latency = mma_lat;
  c.wgmma_latency = wgmma_lat;
  LatencyBandwidthPort p(static_cast<int>(l.per_sm.size()), bw, 0, 500);
  return GpuSmTileModel(c, p).run(l).cycles;
}

}  // namespace

TEST_CASE("gpu_sm sensitivity to the latency assumptions", "[.][gpu_sm][bench]") {
  const GemmCtaTile a = a100_tile();
  const GemmLaunch la = grid(a, 1024, 1024, 1024, 4);
  GemmCtaTile small = a;  // 4 warps of 32x32: 8 mma per k-step, 64 cycles, near the latency
  small.bm = small.bn = 64;
  const GemmLaunch ls = grid(small, 1024, 1024, 1024, 4);
  const GemmCtaTile h = h100_tile();
  const GemmLaunch lh = grid(h, 1024, 1024, 1024, 4);
  const GpuSmConfig ac = a100_sxm4_sm(), hc = h100_sxm5_sm();
  const auto row = [](const char* what, std::uint64_t lo, std::uint64_t mid, std::uint64_t hi) {
    std::cout << fmt::format("{}: {:+.2f}% / {:+.2f}%\n", what,
                             100.0 * (static_cast<double>(lo) / static_cast<double>(mid) - 1),
                             100.0 * (static_cast<double>(hi) / static_cast<double>(mid) - 1));
  };
  row("A100 128x128x32 1024^3, mma_latency 16 / 40 vs 32", cycles_with(ac, la, 64, 16, 32),
      cycles_with(ac, la, 64, 32, 32), cycles_with(ac, la, 64, 40, 32));
  row("A100 64x64x32 1024^3, mma_latency 16 / 40 vs 32", cycles_with(ac, ls, 64, 16, 32),
      cycles_with(ac, ls, 64, 32, 32), cycles_with(ac, ls, 64, 40, 32));
  row("H100 128x128x64 wgmma 1024^3, wgmma_latency 16 / 64 vs 32", cycles_with(hc, lh, 128, 32, 16),
      cycles_with(hc, lh, 128, 32, 32), cycles_with(hc, lh, 128, 32, 64));
}

TEST_CASE("gpu_sm model speed on 1024^3 GEMMs", "[.][gpu_sm][bench]") {
  const GemmCtaTile a = a100_tile();
  bench("A100 fp16 1024^3, 128x128x32 x3, 4 SMs, 64 B/clk/SM", a100_sxm4_sm(),
        grid(a, 1024, 1024, 1024, 4), 64);
  const GemmCtaTile h = h100_tile();
  bench("H100 fp16 1024^3, 128x128x64 x4 wgmma, 4 SMs, 128 B/clk/SM", h100_sxm5_sm(),
        grid(h, 1024, 1024, 1024, 4), 128);
}
