// The SystemC shell of the bank-level HBM: completion times are the plain model's exactly (whose
// ports carry the fixed latency on the response path), engines overlap, and a transfer of megabytes
// costs a handful of SystemC wake-ups rather than one per burst. One elaboration per TEST_CASE
// (ctest runs each alone).
#include <catch2/catch.hpp>

#include <systemc>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "models/hbm/hbm_module.h"
#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "tests/support/sc_bench.h"

using namespace systole;
using namespace systole::models;
using test::Bench;

namespace {

MemoryTransfer read(std::uint64_t addr, std::uint64_t bytes, std::uint16_t engine,
                    std::uint32_t request = 64) {
  MemoryTransfer t;
  t.desc = DmaDescriptor::linear(addr, bytes);
  t.requester = engine;
  t.request_bytes = request;
  t.max_outstanding = 4096;
  return t;
}

/// A read of 8 MiB at 0 and a write of 4 MiB at `write_at`, both at cycle 0, through the plain
/// model on ports with the shell's fixed latency `lat`: when each completed. The shell brings the
/// model up to the present before each submission, so the first one's cycle-0 commands come
/// first. `busy`: how many channels served reads.
void plain_pair(const HbmConfig& cfg, std::uint64_t write_at, Cycle lat, Cycle want[2],
                std::uint64_t* busy = nullptr) {
  HbmTiming plain(cfg);
  const auto p0 = plain.add_port(4096, 64, lat), p1 = plain.add_port(4096, 64, lat);
  plain.submit(p0, DmaDescriptor::linear(0, 8 << 20), false);
  plain.advance_to(0);
  plain.submit(p1, DmaDescriptor::linear(write_at, 4 << 20), true);
  plain.run_until_idle();
  for (const auto& c : plain.take_completed()) want[c.port] = c.at;
  if (busy)
    for (std::size_t c = 0; c < plain.channels(); ++c)
      *busy += plain.controller(c).stats(plain.now()).reads > 0;
}

/// The same two transfers through the SystemC shell: when each finished.
void module_pair(HbmModule& hbm, std::uint64_t write_at, sc_core::sc_time done[2]) {
  Bench b([&] {
    const auto h0 = hbm.begin(read(0, 8 << 20, 0));
    auto w = read(write_at, 4 << 20, 1);
    w.write = true;
    const auto h1 = hbm.begin(w);
    // Both streams are window-bound (4096 x 64 B per 500 ns + the DRAM): the write, half the
    // bytes, ends first.
    hbm.finish(h1);
    done[1] = sc_core::sc_time_stamp();
    hbm.finish(h0);
    done[0] = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
}

}  // namespace

TEST_CASE("HBM module: a lone read takes tRCD + tCL + tBL plus the fixed latency", "[sc][hbm]") {
  const HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
  HbmModule hbm("hbm", cfg);
  sc_core::sc_time returned, latency;
  Bench b([&] {
    latency = hbm.finish(hbm.begin(read(0, 32, 0)));
    returned = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // 500 ns at tCK = 833.3 ps is 600 memory cycles, inside the transfer (issue 10, 5c).
  CHECK(returned == hbm.from_cycle(cfg.t_rcd_rd + cfg.t_cl + cfg.t_bl() + 600));
  CHECK(latency == sc_core::SC_ZERO_TIME);
  CHECK(hbm.counters().bytes_read == 32);
}

TEST_CASE("HBM module: completions equal the plain model's, megabytes cost few wake-ups",
          "[sc][hbm]") {
  const HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
  Cycle want[2] = {0, 0};
  plain_pair(cfg, 1ull << 30, 600, want);  // the shell's 500 ns, on the plain ports too
  HbmModule hbm("hbm", cfg);
  sc_core::sc_time done[2];
  module_pair(hbm, 1ull << 30, done);
  REQUIRE(want[1] < want[0]);
  CHECK(done[0] == hbm.from_cycle(want[0]));
  CHECK(done[1] == hbm.from_cycle(want[1]));
  const std::uint64_t bursts = (12u << 20) / 32;
  WARN(bursts << " bursts, " << hbm.wakeups() << " SystemC wake-ups");
  CHECK(hbm.transfers() == 2);
  CHECK(hbm.wakeups() * 1000 < bursts);  // under one wake-up per thousand bursts
  CHECK(hbm.counters().bytes_read == 8u << 20);
  CHECK(hbm.counters().bytes_written == 4u << 20);
}

TEST_CASE("HBM module: five stacks (A100 80GB, 40 channels) complete as the plain model",
          "[sc][hbm]") {
  // configs/presets/memory/a100_80gb_hbm2e.yaml, as a GPU preset includes it.
  const config::Node n = config::resolve_bases(config::parse_yaml(
      "base: " + test::source_dir() + "/configs/presets/memory/a100_80gb_hbm2e.yaml\n", "gpu"));
  const HbmConfig cfg = HbmConfig::schema().load(n, "hbm");
  REQUIRE(cfg.total_channels() == 40);
  // The shell's fixed latency (500 ns, the default) in memory cycles, on the plain ports too.
  const auto lat =
      static_cast<Cycle>(std::ceil(static_cast<double>(cfg.latency.value()) / cfg.tck_ps() - 1e-9));
  Cycle want[2] = {0, 0};
  std::uint64_t busy = 0;
  plain_pair(cfg, 50ull << 30, lat, want, &busy);
  CHECK(busy == 40);  // every channel served reads
  HbmModule hbm("hbm", cfg);
  sc_core::sc_time done[2];
  module_pair(hbm, 50ull << 30, done);
  CHECK(done[0] == hbm.from_cycle(want[0]));
  CHECK(done[1] == hbm.from_cycle(want[1]));
  CHECK(hbm.counters().bytes_read == 8u << 20);
  CHECK(hbm.counters().bytes_written == 4u << 20);
}

// A regression: an H100 run (tCK = 4 / 5.234375 GHz = 51200/67 ps) livelocked at 23.7 ms of
// simulated time. Its bound was cycle 31,070,044, a multiple of 67, where c x tCK is a whole
// picosecond: the product rounded just below it, the 1e-6 terms were below a double's
// resolution, and the picosecond mapped back to cycle 31,070,043, so the wake-up at that
// picosecond never advanced the model. No SystemC elaboration: the conversions alone.
TEST_CASE("HBM cycle <-> picosecond conversions are exact inverses far into a run", "[sc][hbm]") {
  const double h100 = 4e6 / 5234.375;  // configs/presets/memory/h100_sxm5_80gb_hbm3.yaml
  // Without the check: the old rule's picosecond for cycle 31,070,044 lies in the cycle before.
  const auto old_start = static_cast<std::uint64_t>(std::ceil(31070044.0 * h100 - 1e-6));
  CHECK(old_start == 23743078400ull);
  CHECK(hbm_cycle_of_ps(old_start, h100) == 31070043);
  CHECK(hbm_cycle_start_ps(31070044, h100) == old_start + 1);
  std::vector<double> tcks = {h100};
  for (const auto p : {HbmPreset::kHbm2, HbmPreset::kHbm2e, HbmPreset::kHbm3, HbmPreset::kHbm3e,
                       HbmPreset::kDdr3_2133})
    tcks.push_back(HbmConfig::from_preset(p).tck_ps());
  std::mt19937_64 rng(7);
  int mismatches_before = 0;
  for (const double tck : tcks)
    for (int i = 0; i < 200000; ++i) {
      const Cycle c = static_cast<Cycle>(rng() % (Cycle{1} << 36)) + 1;  // up to ~50 s
      const std::uint64_t ps = hbm_cycle_start_ps(c, tck);
      INFO("tCK " << tck << " ps, cycle " << c);
      REQUIRE(hbm_cycle_of_ps(ps, tck) == c);          // the picosecond lies in the cycle
      REQUIRE(hbm_cycle_of_ps(ps - 1, tck) == c - 1);  // and is its first
      const auto before =
          static_cast<std::uint64_t>(std::ceil(static_cast<double>(c) * tck - 1e-6));
      mismatches_before += hbm_cycle_of_ps(before, tck) != c;
    }
  CHECK(mismatches_before > 0);  // the old rule fails on these draws: the check can fail
}
