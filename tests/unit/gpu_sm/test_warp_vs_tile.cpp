// Fidelity ladder: the tile-level model gives exactly the warp-level reference's record (every
// CTA's start, copy issues and arrivals, store, finish, and each SM's instruction and
// tensor-pipe counts) on random cases, and a speed figure for both.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "models/gpu_sm/gpu_sm_tile_model.h"
#include "models/gpu_sm/gpu_sm_warp_model.h"
#include "tests/unit/gpu_sm/random_gemm.h"

using namespace systole;
using namespace systole::models;

TEST_CASE("tile-level model equals the warp-level reference on 600 random cases",
          "[gpu_sm][property]") {
  std::mt19937 g(20240611);
  using clock = std::chrono::steady_clock;
  double ref_s = 0, fast_s = 0;
  std::uint64_t cycles = 0;
  int hopper = 0, wgmma = 0, swapped = 0, multi_sm = 0, multi_cta = 0, split = 0, edge = 0;
  const int cases = 600;
  for (int i = 0; i < cases; ++i) {
    const test::RandomGemm r = test::random_gemm(g);
    INFO("case " << i << ": " << r.describe());
    auto j1 = r.port();
    auto j2 = r.port();
    test::RecordingPort p1(j1), p2(j2);
    const auto t0 = clock::now();
    const GemmRun ref = GpuSmWarpModel(r.sm, p1).run(r.launch);
    const auto t1 = clock::now();
    const GemmRun fast = GpuSmTileModel(r.sm, p2).run(r.launch);
    const auto t2 = clock::now();
    ref_s += std::chrono::duration<double>(t1 - t0).count();
    fast_s += std::chrono::duration<double>(t2 - t1).count();
    REQUIRE(ref.ctas.size() == fast.ctas.size());
    for (size_t c = 0; c < ref.ctas.size(); ++c) {
      INFO("CTA " << ref.ctas[c].id << " finish ref " << ref.ctas[c].finish << " fast "
                  << fast.ctas[c].finish);
      REQUIRE(ref.ctas[c] == fast.ctas[c]);
    }
    REQUIRE(ref.sms == fast.sms);
    REQUIRE(ref.cycles == fast.cycles);
    REQUIRE(ref.resident == fast.resident);
    // Both honour the port contract and make the same calls in the same order.
    REQUIRE(p1.ordered());
    REQUIRE(p2.ordered());
    REQUIRE(p1.calls() == p2.calls());
    // Analytical bounds: no SM finishes before its tensor pipes could do its mma work, nor
    // before its port could move its bytes.
    for (size_t sm = 0; sm < ref.sms.size(); ++sm) {
      CHECK(ref.cycles * static_cast<std::uint64_t>(r.sm.sub_partitions) >=
            ref.sms[sm].tensor_busy);
      std::uint64_t bytes = 0;
      for (const auto& w : r.launch.per_sm[sm]) {
        const MainloopShape s = mainloop_shape(r.sm, r.launch.tile);
        for (std::int64_t kt = 0; kt < s.k_tiles(w); ++kt) bytes += s.copy_bytes(w, kt).value();
        bytes += s.store_bytes(w).value();
      }
      CHECK(static_cast<double>(ref.cycles) >= static_cast<double>(bytes) / r.sm_bw);
    }
    cycles += ref.cycles;
    hopper += r.sm.arch == GpuArch::kHopper;
    wgmma += r.launch.tile.instr == MmaInstr::kWgmma;
    swapped += r.launch.tile.swap_ab;
    multi_sm += r.sms > 1;
    multi_cta += ref.resident > 1 && ref.ctas.size() > static_cast<size_t>(r.sms);
    split += r.split > 1;
    edge +=
        r.m % r.launch.tile.bm != 0 || r.n % r.launch.tile.bn != 0 || r.k % r.launch.tile.bk != 0;
  }
  // The random cases cover every axis.
  CHECK(hopper > cases / 4);
  CHECK(wgmma > cases / 8);
  CHECK(swapped > cases / 40);
  CHECK(multi_sm > cases / 2);
  CHECK(multi_cta > cases / 4);
  CHECK(split > cases / 4);
  CHECK(edge > cases / 2);
  std::cout << fmt::format(
      "gpu_sm warp vs tile: {} cases, {:.3g} simulated cycles; warp-level {:.3f} s ({:.0f} "
      "cases/s), tile-level {:.4f} s ({:.0f} cases/s), {:.0f}x\n",
      cases, static_cast<double>(cycles), ref_s, cases / ref_s, fast_s, cases / fast_s,
      ref_s / fast_s);
}
