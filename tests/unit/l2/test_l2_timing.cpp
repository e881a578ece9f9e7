// The L2 timing model on hand-worked cases (A100 defaults unless a case says otherwise):
// latencies near and far, the bandwidth path of one line, merged misses, write-allocate at
// sector granularity, dirty evictions, downstream transfers merged into few, and the stats
// declared from the counters. Period P = 1 / 1410 MHz = 709.22 ps; a 128 B line crosses a
// slice in 128 / 64 = 2 cycles, its partition's crossbar port in 128 / 2560 = 0.05 and the
// requester's port in 128 / 64 = 2: 4.05 cycles before the 211-cycle near hit latency.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/l2/l2_timing.h"
#include "sim/stats/stats_tree.h"

using namespace systole;
using namespace systole::models;

namespace {

L2Config a100() { return L2Config::schema().load(config::Node::map(), "l2"); }

std::int64_t stat(const stats::StatGroup& g, const char* name) {
  return std::get<std::int64_t>(g.find(name)->value(stats::kRun));
}

}  // namespace

TEST_CASE("L2 timing: a miss, a near hit, a far hit and merged misses, worked by hand",
          "[unit][l2][timing]") {
  const L2Config cfg = a100();
  const double p = cfg.period_ps();
  L2Timing l2(cfg);
  const std::uint32_t near = l2.add_port(0), far = l2.add_port(1);
  // Line 0: q = 0, r = 0, slice 0 + fold(0) = 0: homed in partition 0. Line 1: slice 1.
  REQUIRE(l2.address_map().locate(0).slice == 0);
  REQUIRE(l2.address_map().locate(1).slice == 1);

  // A cold read: all four sectors go down as one 128 B read and the access waits for it.
  L2Access a = l2.access(near, DmaDescriptor::linear(0, 128), false, 0);
  CHECK_FALSE(a.settled);
  REQUIRE(l2.fetches().size() == 1);
  CHECK(l2.fetches()[0].addr == 0);
  CHECK(l2.fetches()[0].bytes() == 128);
  // Its data arrives at 1 us; the access ends the near hit latency later.
  const auto& s = l2.fetch_arrived(1e6);
  REQUIRE(s.size() == 1);
  CHECK(s[0].id == a.id);
  CHECK(s[0].done_ps == Approx(1e6 + 211 * p));

  // A near hit: 4.05 cycles of bandwidth path, then 211.
  a = l2.access(near, DmaDescriptor::linear(0, 128), false, 2e6);
  CHECK(a.settled);
  CHECK(a.done_ps == Approx(2e6 + (4.05 + 211) * p));
  CHECK(l2.fetches().empty());
  // The same line from partition 1: 158 cycles more.
  a = l2.access(far, DmaDescriptor::linear(0, 128), false, 3e6);
  CHECK(a.done_ps == Approx(3e6 + (4.05 + 369) * p));

  // Line 1 missed by the near requester, then read by the far one before the data is back:
  // merged (no second fetch); both end when it arrives, each with its own latency.
  const L2Access m1 = l2.access(near, DmaDescriptor::linear(128, 128), false, 4e6);
  const L2Access m2 = l2.access(far, DmaDescriptor::linear(128, 128), false, 4e6 + 1);
  CHECK_FALSE(m2.settled);
  CHECK(l2.fetches().empty());
  const auto& both = l2.fetch_arrived(5e6);
  REQUIRE(both.size() == 2);
  CHECK(both[0].id == m1.id);
  CHECK(both[0].done_ps == Approx(5e6 + 211 * p));
  CHECK(both[1].id == m2.id);
  CHECK(both[1].done_ps == Approx(5e6 + 369 * p));
  // Once the data is in, the line is a plain hit again.
  CHECK(l2.access(far, DmaDescriptor::linear(128, 128), false, 6e6).settled);

  const L2Counters& k = l2.counters();
  CHECK(k.transfers == 6);
  CHECK(k.line_accesses == 6);
  CHECK(k.line_misses == 2);
  CHECK(k.line_hits == 4);  // the merged read found its sectors valid (in flight)
  CHECK(k.sector_accesses == 24);
  CHECK(k.sector_misses == 8);
  CHECK(k.sectors_fetched == 8);
  CHECK(k.sectors_merged == 4);
  CHECK(k.far_accesses == 3);
  CHECK(k.fetch_transfers == 2);
  CHECK(k.fetch_bytes == 256);
  CHECK(k.bytes_read == 6 * 128);
  CHECK(k.slice_bytes[0] == 3 * 128);
  CHECK(k.slice_bytes[1] == 3 * 128);
  CHECK(l2.waiting() == 0);

  // The same numbers through the stats tree.
  stats::StatGroup root("gpu0", "gpu");
  stats::StatGroup& g = root.group("l2", "l2");
  declare_l2_stats(g, cfg, [&l2]() -> const L2Timing& { return l2; });
  CHECK(stat(g, "line_misses") == 2);
  CHECK(stat(g, "sectors_merged") == 4);
  CHECK(stat(g, "far_accesses") == 3);
  CHECK(std::get<double>(g.find("sector_hit_rate")->value(stats::kRun)) == Approx(16.0 / 24));
  CHECK(stat(*g.find_group("slice1"), "bytes") == 384);
  CHECK(g.groups().size() == 80);
}

TEST_CASE("L2 timing: writes allocate whole sectors without a fetch, partial ones fetch",
          "[unit][l2][timing]") {
  L2Timing l2(a100());
  const std::uint32_t port = l2.add_port(0);
  // 32 B at a sector boundary: allocated dirty, nothing fetched, settled at once.
  L2Access a = l2.access(port, DmaDescriptor::linear(4096, 32), true, 0);
  CHECK(a.settled);
  CHECK(l2.fetches().empty());
  // 16 B inside the next sector: that sector is fetched (32 B), the write waits for it.
  a = l2.access(port, DmaDescriptor::linear(4096 + 40, 16), true, 1000);
  CHECK_FALSE(a.settled);
  REQUIRE(l2.fetches().size() == 1);
  CHECK(l2.fetches()[0].addr == 4096 + 32);
  CHECK(l2.fetches()[0].bytes() == 32);
  // 40 B from byte 20: sectors 0 and 1 partly written, both valid, sector 1 still in flight:
  // no fetch, the write waits for the one before (merged).
  a = l2.access(port, DmaDescriptor::linear(4096 + 20, 40), true, 2000);
  CHECK_FALSE(a.settled);
  CHECK(l2.fetches().empty());
  // 80 B from the line's start: sectors 0 and 1 whole, sector 2 partly and not valid: fetched.
  l2.access(port, DmaDescriptor::linear(4096, 80), true, 3000);
  REQUIRE(l2.fetches().size() == 1);
  CHECK(l2.fetches()[0].addr == 4096 + 64);
  const L2Counters& k = l2.counters();
  CHECK(k.line_misses == 1);
  CHECK(k.line_sector_misses == 2);
  CHECK(k.line_hits == 1);
  CHECK(k.sector_misses == 3);
  CHECK(k.sectors_fetched == 2);
  CHECK(k.sectors_merged == 1);
  CHECK(k.bytes_written == 32 + 16 + 40 + 80);
}

TEST_CASE("L2 timing: dirty victims are written back, and hold their access until accepted",
          "[unit][l2][timing]") {
  // One slice, one set of two 128 B ways: lines 0, 1, 2, 3 all share the set.
  L2Config cfg = a100();
  cfg.partitions = 1;
  cfg.slices_per_partition = 1;
  cfg.associativity = 2;
  cfg.capacity = Bytes(256);
  L2Timing l2(cfg);
  const std::uint32_t port = l2.add_port(0);
  CHECK(l2.access(port, DmaDescriptor::linear(0, 128), true, 0).settled);    // line 0 dirty
  CHECK(l2.access(port, DmaDescriptor::linear(128, 64), true, 10).settled);  // line 1: 2 dirty
  // Line 2 evicts the least recently used, line 0: its 4 dirty sectors go down as one write;
  // the read waits for its own fetch and for the write-back's acceptance.
  const L2Access a = l2.access(port, DmaDescriptor::linear(256, 128), false, 20);
  REQUIRE(l2.writebacks().size() == 1);
  CHECK(l2.writebacks()[0].addr == 0);
  CHECK(l2.writebacks()[0].bytes() == 128);
  // (Its bandwidth path alone ends at 5000 ps + 211 cycles: lines of 2, 1 and 2 slice and
  // port cycles queue one behind the other; the data at 1 us comes later.)
  CHECK(l2.fetch_arrived(1e6).empty());  // still waits for the write-back
  const auto& s = l2.writeback_accepted(1.5e6);
  REQUIRE(s.size() == 1);
  CHECK(s[0].id == a.id);
  CHECK(s[0].done_ps == Approx(1.5e6));  // accepted after the data's 1 us + 211 cycles
  // Line 3 evicts line 1: its first two sectors.
  l2.access(port, DmaDescriptor::linear(384, 128), false, 2e6);
  REQUIRE(l2.writebacks().size() == 1);
  CHECK(l2.writebacks()[0].addr == 128);
  CHECK(l2.writebacks()[0].bytes() == 64);
  const L2Counters& k = l2.counters();
  CHECK(k.evictions == 2);
  CHECK(k.writebacks == 2);
  CHECK(k.writeback_sectors == 6);
  CHECK(k.writeback_bytes == 192);
}

TEST_CASE("L2 timing: a missing tile or stream goes down as one transfer", "[unit][l2][timing]") {
  L2Timing l2(a100());
  const std::uint32_t port = l2.add_port(0);
  // 8 rows of 256 B, 8 KiB apart: one strided read.
  l2.access(port, DmaDescriptor::strided(1 << 20, 8, 256, 8192), false, 0);
  REQUIRE(l2.fetches().size() == 1);
  const DmaDescriptor& d = l2.fetches()[0];
  CHECK(d.addr == 1 << 20);
  CHECK(d.row_bytes == 256);
  CHECK(d.dims[0].count == 8);
  CHECK(d.dims[0].stride == 8192);
  // 1 MiB, unaligned at both ends: one read from the first sector to the last.
  l2.access(port, DmaDescriptor::linear((64 << 20) + 40, 1 << 20), false, 0);
  REQUIRE(l2.fetches().size() == 1);
  CHECK(l2.fetches()[0].addr == (64 << 20) + 32);
  CHECK(l2.fetches()[0].bytes() == (1 << 20) + 32);
  // Rows half of which hit: the missing halves, 4 runs at a 8 KiB stride, are again one.
  l2.access(port, DmaDescriptor::strided(1 << 20, 4, 512, 8192), false, 0);
  REQUIRE(l2.fetches().size() == 1);
  CHECK(l2.fetches()[0].addr == (1 << 20) + 256);
  CHECK(l2.fetches()[0].row_bytes == 256);
  CHECK(l2.fetches()[0].dims[0].count == 4);
}

// A tile of 128 rows of 128 B at a 10 KiB pitch: 80 lines apart, a multiple of the 80 slices.
// Plain interleaving (slice = line mod 80) puts every row in one slice; the XOR-folded hash
// adds the row's upper bits, so the 128 rows spread over all 80 slices (one or two each).
TEST_CASE("L2 timing: the address hash spreads a slice-aliased stride over the slices",
          "[unit][l2][timing]") {
  for (const L2Hash hash : {L2Hash::kNone, L2Hash::kXor}) {
    L2Config cfg = a100();
    cfg.address_hash = hash;
    L2Timing l2(cfg);
    l2.access(l2.add_port(0), DmaDescriptor::strided(0, 128, 128, 80 * 128), false, 0);
    const std::vector<std::uint64_t>& b = l2.counters().slice_bytes;
    const std::uint64_t most = *std::max_element(b.begin(), b.end());
    const auto used = std::count_if(b.begin(), b.end(), [](std::uint64_t v) { return v > 0; });
    if (hash == L2Hash::kNone) {
      CHECK(most == 128 * 128);
      CHECK(used == 1);
    } else {
      CHECK(most <= 2 * 128);
      CHECK(used == 80);
    }
  }
}

TEST_CASE("L2 timing: a new clock scales later accesses' times, not the cycles or the tags",
          "[unit][l2][timing]") {
  L2Config cfg = a100();
  const double p = cfg.period_ps();
  L2Timing l2(cfg);
  const std::uint32_t near = l2.add_port(0);
  (void)l2.access(near, DmaDescriptor::linear(0, 128), false, 0);
  (void)l2.fetch_arrived(1e6);
  // A near hit at 1410 MHz: 4.05 cycles of bandwidth path, then the 211-cycle latency.
  L2Access a = l2.access(near, DmaDescriptor::linear(0, 128), false, 2e6);
  CHECK(a.done_ps == Approx(2e6 + (4.05 + 211) * p));
  // At twice the clock the same hit (the line stays valid) takes the same cycles, half the time.
  l2.set_clock(Hz(2 * cfg.clock.value()));
  CHECK(l2.config().clock.value() == 2 * cfg.clock.value());
  a = l2.access(near, DmaDescriptor::linear(0, 128), false, 3e6);
  CHECK(a.settled);
  CHECK(a.done_ps == Approx(3e6 + (4.05 + 211) * p / 2));
  CHECK(l2.counters().line_hits == 2);
}

TEST_CASE("L2 timing: a multicast read crosses the slice once and every receiver's port",
          "[unit][l2][timing][multicast]") {
  const L2Config cfg = a100();
  const double p = cfg.period_ps();
  // Lines 0 and 1 (slices 0 and 1, both homed in partition 0) warm, then at 2e6 a read of
  // line 0 from port a, multicast to port b or not, then b's own read of line 1 at 2e6.
  const auto run = [&](bool multicast, double& line0_done, double& line1_done,
                       std::uint64_t& slice0_bytes) {
    L2Timing l2(cfg);
    const std::uint32_t a = l2.add_port(0), b = l2.add_port(0);
    l2.access(a, DmaDescriptor::linear(0, 256), false, 0);
    l2.fetch_arrived(1e6);
    const std::uint64_t before = l2.counters().slice_bytes[0];
    const std::uint32_t also[] = {b};
    const L2Access m =
        l2.access(a, DmaDescriptor::linear(0, 128), false, 2e6, also, multicast ? 1 : 0);
    const L2Access r = l2.access(b, DmaDescriptor::linear(128, 128), false, 2e6);
    CHECK(m.settled);
    CHECK(r.settled);
    line0_done = m.done_ps;
    line1_done = r.done_ps;
    slice0_bytes = l2.counters().slice_bytes[0] - before;
  };
  double m0 = 0, m1 = 0, u0 = 0, u1 = 0;
  std::uint64_t ms = 0, us = 0;
  run(true, m0, m1, ms);
  run(false, u0, u1, us);
  // The multicast: slice 0 once (2 cycles), the crossbar (0.05), then ports a and b in
  // parallel (2 each): 4.05 + 211, as a plain read.
  CHECK(m0 == Approx(2e6 + (4.05 + 211) * p));
  CHECK(u0 == Approx(m0));
  CHECK(ms == 128);
  CHECK(us == 128);
  // b's own read: slice 1 (2 cycles), the crossbar after the multicast's turn (2.05 -> 2.1),
  // then b's port, which the multicast holds until 4.05: 6.05 + 211. Without the multicast
  // b's port is free: 4.1 + 211.
  CHECK(m1 == Approx(2e6 + (6.05 + 211) * p));
  CHECK(u1 == Approx(2e6 + (4.1 + 211) * p));
}
