// Golden cycle counts of the warp-level reference and the tile-level model on small CTAs,
// derived by hand from the rules in models/gpu_sm/README.md.
#include <catch2/catch.hpp>

#include "models/gpu_sm/gpu_sm_factory.h"
#include "models/gpu_sm/gpu_sm_stats.h"
#include "models/gpu_sm/gpu_sm_tile_model.h"
#include "models/gpu_sm/gpu_sm_warp_model.h"
#include "sim/config/node.h"

using namespace systole;
using namespace systole::models;

namespace {

GemmRun both(const GpuSmConfig& c, const GemmLaunch& l, GemmRun* fast) {
  LatencyBandwidthPort p1(1, 1024, 0, 100), p2(1, 1024, 0, 100);
  *fast = GpuSmTileModel(c, p2).run(l);
  return GpuSmWarpModel(c, p1).run(l);
}

/// The 16x16x16 fp16 CTA of the A100 golden cases (one warp, 2 stages), one per K in `ks`.
GemmLaunch tiny_a100(std::initializer_list<std::int64_t> ks) {
  GemmLaunch l;
  l.tile.bm = l.tile.bn = l.tile.bk = 16;
  l.tile.warps_m = l.tile.warps_n = 1;
  l.tile.stages = 2;
  l.per_sm.resize(1);
  for (std::int64_t k : ks) {
    const auto id = static_cast<std::int64_t>(l.per_sm[0].size());
    l.per_sm[0].push_back(CtaWork{id, 0, 16 * id, 16, 16, 0, k});
  }
  return l;
}

}  // namespace

TEST_CASE("golden: one A100 mma.sync warp, one k-tile", "[gpu_sm][golden]") {
  // fp16, CTA 16x16x16, one warp, 2 stages, K = 16. Memory: 100 cycles + 1024 B/clk.
  // Shape: 2 mma m16n8k16 per k-step (II = 16*8*16 / 256 = 8), 2 ldmatrix.x4 (16 bank cycles
  // each on a 32 B/clk share), 2 cp.async per k-tile ((16+16)*16*2 B / 512 B).
  //  prologue: cp 0, 1 (k-tile 0 requested at 1: 1 + 1 + 100 = 102), bar.sync at 2.
  //  k-tile 0: barrier releases at max(2 + 1, 102) = 102; ldmatrix at 102, 103: banks
  //    102..134, fragments at 134 + 29 = 163; mma at 163 and 171.
  //  epilogue: accumulators at 163 + 8 + 32 = 203; 4 cvt on FP32 lanes (2 cycles each: 16
  //    lanes per sub-partition) at 203, 205, 207, 209; st.global at 210: finish 211; the store
  //    (512 B) completes at 210 + 1 + 100 = 311.
  const GemmLaunch l = tiny_a100({16});
  GemmRun fast;
  const GemmRun ref = both(a100_sxm4_sm(), l, &fast);
  REQUIRE(ref.ctas.size() == 1);
  CHECK(ref.ctas[0].copy_issue == std::vector<std::uint64_t>{1});
  CHECK(ref.ctas[0].copy_done == std::vector<std::uint64_t>{102});
  CHECK(ref.ctas[0].finish == 211);
  CHECK(ref.ctas[0].store_issue == 210);
  CHECK(ref.cycles == 311);
  CHECK(ref.sms[0].mma == 2);
  CHECK(ref.sms[0].tensor_busy == 16);
  CHECK(ref.sms[0].instructions == 2 + 1 + 2 + 2 + 4 + 1);
  CHECK(fast.ctas == ref.ctas);
  CHECK(fast.sms == ref.sms);
}

TEST_CASE("golden: one H100 wgmma warpgroup, two k-tiles", "[gpu_sm][golden]") {
  // fp16, CTA 64x64x16, one consumer warpgroup (wgmma m64n64k16: each warp's 16x64x16 share
  // takes 16*64*16 / 512 = 32 cycles of its sub-partition's pipe), 2 stages, K = 32.
  // Copies: (64+64)*16*2 = 4 KiB per k-tile, 4 cycles at 1024 B/clk, + 100.
  //  producer (warp 0): TMA 0, 1 (k-tile 0 requested at 1: done 1 + 4 + 100 = 105); TMA 2, 3
  //    (k-tile 1 at 3, behind k-tile 0 on the port: 5 + 4 + 100 = 109).
  //  consumer warps: wgmma of k-tile 0 at 105 (pipe 105..137, done 137 + 32 = 169); of
  //    k-tile 1 at 109 (pipe 137..169, done 201); release of k-tile 0 at 169.
  //  epilogue at 201: 16 cvt (32 accumulators per thread, 2 per cvt; 1 cycle each on 32 lanes
  //    per sub-partition) 201..216, 4 st.global 217..220: finish 221; store (8 KiB, 8 cycles)
  //    done at 220 + 8 + 100 = 328.
  GemmLaunch l;
  l.tile.bm = l.tile.bn = 64;
  l.tile.bk = 16;
  l.tile.warps_m = l.tile.warps_n = 1;
  l.tile.stages = 2;
  l.tile.instr = MmaInstr::kWgmma;
  l.tile.copy = CopyEngine::kTma;
  l.per_sm = {{CtaWork{0, 0, 0, 64, 64, 0, 32}}};
  GemmRun fast;
  const GemmRun ref = both(h100_sxm5_sm(), l, &fast);
  REQUIRE(ref.ctas.size() == 1);
  CHECK(ref.ctas[0].copy_issue == std::vector<std::uint64_t>{1, 3});
  CHECK(ref.ctas[0].copy_done == std::vector<std::uint64_t>{105, 109});
  CHECK(ref.ctas[0].finish == 221);
  CHECK(ref.cycles == 328);
  CHECK(ref.sms[0].mma == 8);  // 2 k-tiles x 4 warps
  CHECK(ref.sms[0].tensor_busy == 8 * 32);
  CHECK(fast.ctas == ref.ctas);
  CHECK(fast.sms == ref.sms);
}

TEST_CASE("two CTAs on one SM take turns on the tensor pipes", "[gpu_sm][golden]") {
  // The 16x16x16 CTA above twice, resident together: the second CTA's copy queues behind the
  // first on the port (done at 103) and its warp shares sub-partition 0 with the first's.
  const GemmLaunch l = tiny_a100({16, 16});
  GemmRun fast;
  const GemmRun ref = both(a100_sxm4_sm(), l, &fast);
  REQUIRE(ref.resident >= 2);
  REQUIRE(ref.ctas.size() == 2);
  // CTA 1's prologue waits for CTA 0's (3 instructions on the same scheduler): cp at 3, 4.
  CHECK(ref.ctas[1].copy_issue == std::vector<std::uint64_t>{4});
  CHECK(ref.ctas[1].copy_done == std::vector<std::uint64_t>{105});
  CHECK(ref.ctas[1].finish > ref.ctas[0].finish);
  CHECK(fast.ctas == ref.ctas);
}

TEST_CASE("golden: the last k-step's mma.sync overlap the next k-tile's fragment loads",
          "[gpu_sm][golden]") {
  // The 16x16x16 A100 CTA of the first golden case with K = 32: two k-tiles.
  //  prologue: cp 0, 1 (k-tile 0: 1 + 1 + 100 = 102), bar.sync at 2.
  //  k-tile 0 (barrier at 102): cp 102, 103 (k-tile 1: 103 + 1 + 100 = 204); ldmatrix 104, 105
  //    (banks 104..136, fragments at 165); bar.sync at 106. Its mma.sync wait past the barrier.
  //  k-tile 1 (barrier at max(107, 204) = 204): ldmatrix 204, 205 (banks 204..236, fragments
  //    at 265); k-tile 0's mma.sync at 206, 214 (their fragments landed at 165); k-tile 1's at
  //    max(215, pipe 222, fragments 265, accumulators 206 + 32) = 265 and 273.
  //  epilogue: accumulators at 265 + 8 + 32 = 305; cvt 305, 307, 309, 311; st.global 312:
  //    finish 313; store done 312 + 1 + 100 = 413.
  const GemmLaunch l = tiny_a100({32});
  GemmRun fast;
  const GemmRun ref = both(a100_sxm4_sm(), l, &fast);
  REQUIRE(ref.ctas.size() == 1);
  CHECK(ref.ctas[0].copy_issue == std::vector<std::uint64_t>{1, 103});
  CHECK(ref.ctas[0].copy_done == std::vector<std::uint64_t>{102, 204});
  CHECK(ref.ctas[0].finish == 313);
  CHECK(ref.cycles == 413);
  CHECK(fast.ctas == ref.ctas);
  CHECK(fast.sms == ref.sms);
}

TEST_CASE("golden: a later k-tile's cp.async issue between the deferred mma.sync",
          "[gpu_sm][golden]") {
  // The same CTA with K = 48: three k-tiles, two stages.
  //  prologue and k-tile 0 as above (k-tile 0 lands at 102, k-tile 1 at 204; fragments of
  //    k-tile 0 at 165; bar.sync at 106).
  //  k-tile 1 (barrier at 204): ldmatrix 204, 205 (banks 204..236, fragments at 265); k-tile
  //    0's mma.sync at 206 and 214 with k-tile 2's cp.async after each, at 207 and 215 (k-tile
  //    2 requested at 215: 215 + 1 + 100 = 316); bar.sync at 216.
  //  k-tile 2 (barrier at max(217, 316) = 316): ldmatrix 316, 317 (banks 316..348, fragments
  //    at 377); k-tile 1's mma.sync at max(318, pipe 222, fragments 265, accumulators 238) =
  //    318 and 326; k-tile 2's at max(327, pipe 334, fragments 377, accumulators 350) = 377
  //    and 385.
  //  epilogue: accumulators at 377 + 8 + 32 = 417; cvt 417..423; st.global 424: finish 425;
  //    store done 424 + 1 + 100 = 525.
  GemmRun fast;
  const GemmRun ref = both(a100_sxm4_sm(), tiny_a100({48}), &fast);
  REQUIRE(ref.ctas.size() == 1);
  CHECK(ref.ctas[0].copy_issue == std::vector<std::uint64_t>{1, 103, 215});
  CHECK(ref.ctas[0].copy_done == std::vector<std::uint64_t>{102, 204, 316});
  CHECK(ref.ctas[0].finish == 425);
  CHECK(ref.cycles == 525);
  CHECK(fast.ctas == ref.ctas);
  CHECK(fast.sms == ref.sms);
}

TEST_CASE("gpu_sm stats read the run record", "[gpu_sm][stats]") {
  GemmRun fast;
  const GemmRun ref = both(a100_sxm4_sm(), tiny_a100({16}), &fast);
  stats::StatGroup root("gpu0", "gpu");
  stats::StatGroup& g = root.group("sm0", "gpu_sm");
  declare_gpu_sm_stats(g, {[&] { return fast.sms[0]; }, [&] { return fast.cycles; }}, 4);
  CHECK(std::get<std::int64_t>(g.find("mma_instructions")->value(stats::kRun)) == 2);
  CHECK(std::get<std::int64_t>(g.find("tensor_busy_cycles")->value(stats::kRun)) == 16);
  // 16 busy cycles over 4 pipes x 311 cycles (the golden case above).
  CHECK(std::get<double>(g.find("tensor_utilization")->value(stats::kRun)) ==
        Approx(16.0 / (4 * 311)));
}

TEST_CASE("gpu_sm.model picks the model, both giving the golden record", "[gpu_sm][golden]") {
  GpuSmConfig c =
      GpuSmConfig::schema().load(config::parse_yaml("model: warp\n", "t.yaml"), "gpu_sm");
  CHECK(c.model == GpuSmModel::kWarp);
  LatencyBandwidthPort p1(1, 1024, 0, 100), p2(1, 1024, 0, 100);
  const GemmRun warp = run_gemm_launch(c, p1, tiny_a100({32}));
  c.model = GpuSmModel::kTile;
  const GemmRun tile = run_gemm_launch(c, p2, tiny_a100({32}));
  CHECK(warp.cycles == 413);
  CHECK(tile.ctas == warp.ctas);
  CHECK(a100_sxm4_sm().model == GpuSmModel::kTile);
}

TEST_CASE("compute-bound main loops keep the tensor pipes busy", "[gpu_sm][bounds]") {
  // Long K, ample bandwidth: the only losses are the prologue, the epilogue and the few
  // cycles of each barrier, so the tensor pipes must be busy nearly all the time. Bounds
  // stated before measuring: A100 multistage >= 93%, H100 warp-specialised >= 90%.
  GemmLaunch a;
  a.tile.bm = a.tile.bn = 128;
  a.tile.bk = 32;
  a.tile.stages = 3;
  GemmLaunch h;
  h.tile.bm = h.tile.bn = 128;
  h.tile.bk = 64;
  h.tile.stages = 4;
  h.tile.warps_m = 2;
  h.tile.warps_n = 1;
  h.tile.instr = MmaInstr::kWgmma;
  h.tile.copy = CopyEngine::kTma;
  h.tile.regs_per_thread = 168;
  for (auto* l : {&a, &h}) {
    l->per_sm.assign(1, {});
    for (std::int64_t id = 0; id < 6; ++id)
      l->per_sm[0].push_back(CtaWork{id, 0, 128 * id, 128, 128, 0, 4096});
  }
  const auto busy = [](const GpuSmConfig& c, const GemmLaunch& l) {
    LatencyBandwidthPort p(1, 256, 0, 500);
    const GemmRun r = GpuSmTileModel(c, p).run(l);
    return static_cast<double>(r.sms[0].tensor_busy) / (4.0 * static_cast<double>(r.cycles));
  };
  CHECK(busy(a100_sxm4_sm(), a) >= 0.93);
  CHECK(busy(h100_sxm5_sm(), h) >= 0.90);
}

TEST_CASE("cp.async fills share the bank share with ldmatrix (A100 multistage)",
          "[gpu_sm][bounds]") {
  // README rule 4, "cp.async fills share the data pipe". Per sub-partition and k-tile (k32):
  // a 64x64 CTA with 32x32 warp tiles needs 128 tensor cycles, 128 bank cycles of ldmatrix
  // and 64 of cp.async writes, so the banks bound it at 128 / 192 = 2/3 of the tensor rate;
  // a 128x128 CTA (64x64 warp tiles: 512 tensor, 256 + 128 bank cycles) stays tensor-bound.
  // Both models must give it (they are equal on every case); bounds stated before running.
  const auto busy = [](std::int64_t b) {
    GemmLaunch l;
    l.tile.bm = l.tile.bn = b;
    l.tile.bk = 32;
    l.tile.stages = 3;
    l.per_sm.assign(1, {});
    for (std::int64_t id = 0; id < 4; ++id)
      l.per_sm[0].push_back(CtaWork{id, 0, b * id, b, b, 0, 4096});
    LatencyBandwidthPort p1(1, 256, 0, 500), p2(1, 256, 0, 500);
    const GemmRun fast = GpuSmTileModel(a100_sxm4_sm(), p1).run(l);
    const GemmRun ref = GpuSmWarpModel(a100_sxm4_sm(), p2).run(l);
    CHECK(fast.cycles == ref.cycles);
    CHECK(fast.sms == ref.sms);
    const double span = 4.0 * static_cast<double>(fast.cycles);
    return std::make_pair(static_cast<double>(fast.sms[0].tensor_busy) / span,
                          static_cast<double>(fast.sms[0].smem_busy) / span);
  };
  const auto [small, small_smem] = busy(64);
  const auto [large, large_smem] = busy(128);
  CHECK(small <= 0.667 + 1e-9);
  CHECK(small >= 0.60);
  CHECK(large >= 0.93);
  // The banks are what binds the small CTA: busy nearly all the time (1.5x its tensor share);
  // the large one's stay below its tensor pipes' (384 of 512 cycles a k-tile).
  CHECK(small_smem >= 0.90);
  CHECK(small_smem == Approx(1.5 * small).epsilon(0.01));
  CHECK(large_smem == Approx(large * 384.0 / 512.0).epsilon(0.01));
}
