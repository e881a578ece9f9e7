// Occupancy against hand-worked cases (CUDA occupancy-calculator rules: registers per warp
// rounded up to 256 and split per sub-partition, shared memory + 1 KB reserved rounded up to
// 128 B, warp and CTA caps).
#include <catch2/catch.hpp>

#include "models/gpu_sm/gpu_cta_tile.h"
#include "models/gpu_sm/gpu_occupancy.h"

using namespace systole;
using namespace systole::models;
using Catch::Matchers::Contains;

namespace {

Occupancy occ(const GpuSmConfig& c, std::int64_t threads, std::int64_t regs, std::uint64_t smem) {
  return occupancy(c, CtaResources{threads, regs, Bytes(smem)});
}

}  // namespace

TEST_CASE("occupancy: hand-worked A100 cases", "[gpu_sm][occupancy]") {
  const GpuSmConfig a = a100_sxm4_sm();
  // 256 threads = 8 warps; 64 regs x 32 = 2048 per warp; 16384 per sub-partition / 2048 = 8
  // warps each, 32 per SM -> 4 CTAs. Warps allow 64 / 8 = 8; smem (0 + 1 KB) allows 164.
  Occupancy o = occ(a, 256, 64, 0);
  CHECK(o.ctas == 4);
  CHECK(o.limiter == OccupancyLimit::kRegisters);
  CHECK(o.by_warps == 8);
  CHECK(o.by_smem == 164);
  CHECK(o.fraction(a) == Approx(0.5));
  // CUTLASS 128x128x32 fp16, 3 stages: 3 x (128 + 128) x 32 x 2 B = 48 KiB; + 1 KiB reserved =
  // 50176 B (a multiple of 128); 167936 / 50176 = 3.3 -> 3. 128 threads at 128 regs: 4096 per
  // warp, 4 warps per sub-partition, 16 per SM -> 4 CTAs. Shared memory binds: 3.
  o = occ(a, 128, 128, 49152);
  CHECK(o.ctas == 3);
  CHECK(o.limiter == OccupancyLimit::kSharedMemory);
  CHECK(o.smem_per_cta == 50176);
  // 1024 threads = 32 warps: warps allow 2; at 32 regs, 1024 per warp, 16 per sub-partition,
  // 64 per SM -> 2 as well; ties name the first binding limit (warps before registers).
  o = occ(a, 1024, 32, 0);
  CHECK(o.ctas == 2);
  CHECK(o.limiter == OccupancyLimit::kWarps);
  // 255 regs x 32 = 8160 -> 8192 per warp; 2 warps per sub-partition, 8 per SM; 4-warp CTAs -> 2.
  o = occ(a, 128, 255, 0);
  CHECK(o.regs_per_warp == 8192);
  CHECK(o.ctas == 2);
  // One warp at 16 regs: 64 warps and 128 by registers; the 32-CTA cap binds.
  o = occ(a, 32, 16, 0);
  CHECK(o.ctas == 32);
  CHECK(o.limiter == OccupancyLimit::kCtas);
  // 100 B of smem rounds to (100 + 1024) -> 1152 B; 167936 / 1152 = 145.8 -> 145 (CTA cap 32).
  CHECK(occ(a, 32, 16, 100).smem_per_cta == 1152);
}

TEST_CASE("occupancy: H100 gives one 227 KiB CTA per SM", "[gpu_sm][occupancy]") {
  const GpuSmConfig h = h100_sxm5_sm();
  // 227 KiB + 1 KiB reserved = 228 KiB, exactly the carve-out.
  const Occupancy o = occ(h, 128, 128, 227 * 1024);
  CHECK(o.ctas == 1);
  CHECK(o.limiter == OccupancyLimit::kSharedMemory);
}

TEST_CASE("occupancy: a CTA that cannot fit is a ConfigError", "[gpu_sm][occupancy]") {
  const GpuSmConfig a = a100_sxm4_sm();
  CHECK_THROWS_AS(occ(a, 128, 64, 164 * 1024), ConfigError);
  CHECK_THROWS_WITH(occ(a, 128, 64, 164 * 1024), Contains("fewer pipeline stages"));
  CHECK_THROWS_WITH(occ(a, 2048, 32, 0), Contains("threads"));
  CHECK_THROWS_WITH(occ(a, 128, 256, 0), Contains("255"));
  // A GEMM tile whose stages do not fit: 4 x (256 + 256) x 64 x 2 B = 256 KiB.
  GemmCtaTile t;
  t.bm = t.bn = 256;
  t.bk = 64;
  t.stages = 4;
  try {
    mainloop_shape(a, t);
    FAIL("accepted a tile larger than shared memory");
  } catch (const ConfigError& e) {
    CHECK(e.path() == "cta.smem");
  }
}

TEST_CASE("CTA tiles the SM cannot run are ConfigErrors", "[gpu_sm][occupancy]") {
  const GpuSmConfig a = a100_sxm4_sm();
  GemmCtaTile t;
  t.in_type = TcType::kFp8E4M3;
  CHECK_THROWS_WITH(mainloop_shape(a, t), Contains("fp8") && Contains("hopper"));
  t = GemmCtaTile{};
  t.instr = MmaInstr::kWgmma;
  t.copy = CopyEngine::kTma;
  CHECK_THROWS_WITH(mainloop_shape(a, t), Contains("wgmma"));
  t = GemmCtaTile{};
  t.bk = 24;
  CHECK_THROWS_WITH(mainloop_shape(a, t), Contains("bk"));
  const GpuSmConfig h = h100_sxm5_sm();
  t = GemmCtaTile{};
  t.instr = MmaInstr::kWgmma;
  t.copy = CopyEngine::kTma;
  t.bm = 128;
  t.bn = 512;
  t.warps_m = 2;
  t.warps_n = 1;
  CHECK_THROWS_WITH(mainloop_shape(h, t), Contains("256"));
  // A CTA's work must fit its tile.
  GemmCtaTile tile;
  try {
    check_cta_work(tile, CtaWork{3, 0, 0, 129, 16, 0, 64});
    FAIL("accepted a CTA larger than its tile");
  } catch (const ConfigError& e) {
    CHECK(e.path() == "cta.work");
    CHECK_THAT(e.message(), Contains("CTA 3"));
  }
  CHECK_THROWS_WITH(check_cta_work(tile, CtaWork{4, 0, 0, 16, 16, 0, 0}), Contains("empty K"));
}
