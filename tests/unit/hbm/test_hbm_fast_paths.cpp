// The bank-level HBM model's fast paths against its reference path (HbmController::set_fast):
// random memories (every preset, 1-4 channels, one or two command buses, FR-FCFS and FCFS, open
// and closed page, queue sizes, drain watermarks, address hashes, refresh) under random traffic
// (ports with random outstanding limits, request sizes and response latencies; strided tiles,
// linear ranges, gathers, reads and writes, staggered submissions), each run twice: every issued
// command (cycle, command, target, per channel) and every transfer completion must be the same.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/hbm/hbm_timing.h"
#include "tests/unit/hbm/hbm_trace.h"

using namespace systole::models;
using systole::models::test::HbmRecorder;
using systole::models::test::HbmTrace;
using systole::models::test::Rng;

namespace {

HbmConfig random_config(Rng& rng) {
  HbmConfig cfg = systole::models::test::random_preset(rng);
  if (rng() % 5 == 0) cfg = HbmConfig::from_preset(HbmPreset::kDdr3_2133);
  if (rng() % 3 == 0) cfg.command_buses = 1;  // one command bus (DDR3's; also on HBM here)
  std::int64_t channels = static_cast<std::int64_t>(1 + rng() % 4);
  if (channels == 3) channels = 2;  // (powers of two keep the capacity simple)
  cfg = systole::models::test::one_stack(cfg, channels);
  cfg.scheduler = rng() % 4 ? SchedulerKind::kFrFcfs : SchedulerKind::kFcfs;
  cfg.page_policy = rng() % 3 ? PagePolicy::kOpen : PagePolicy::kClosed;
  const std::int64_t queues[] = {4, 8, 16, 32, 64};
  cfg.read_queue = queues[rng() % 5];
  cfg.write_queue = queues[rng() % 5];
  if (rng() % 3 == 0) {
    cfg.write_drain_high = 0.5 + 0.5 * static_cast<double>(rng() % 100) / 100.0;
    cfg.write_drain_low = cfg.write_drain_high * static_cast<double>(rng() % 100) / 100.0;
  }
  const AddressHash hashes[] = {AddressHash::kXor, AddressHash::kMix, AddressHash::kNone};
  cfg.address_hash = hashes[rng() % 3];
  if (rng() % 4 == 0) cfg.t_refi = 2 * cfg.t_rfc + static_cast<std::int64_t>(rng() % 3000);
  if (rng() % 8 == 0) cfg.refresh = RefreshKind::kNone;
  return cfg;
}

// One run of the traffic that `seed` draws, with the fast paths on or off.
HbmTrace run(const HbmConfig& cfg, std::uint64_t seed, bool fast) {
  Rng rng(seed);
  HbmTiming h(cfg);
  HbmRecorder rec(h);
  for (std::size_t c = 0; c < h.channels(); ++c) h.controller(c).set_fast(fast);
  HbmTrace out;
  const std::uint64_t cap = cfg.capacity.value();
  std::vector<std::uint32_t> ports;
  const std::uint32_t nports = 1 + static_cast<std::uint32_t>(rng() % 5);
  for (std::uint32_t i = 0; i < nports; ++i) {
    const std::uint32_t outstanding = 8u << (rng() % 9);  // 8 .. 2048
    const std::uint32_t request = 32u << (rng() % 5);     // 32 .. 512 B
    const Cycle latency = rng() % 2 ? 0 : static_cast<Cycle>(rng() % 700);
    ports.push_back(h.add_port(outstanding, request, latency));
  }
  Cycle t = 0;
  const int transfers = 20 + static_cast<int>(rng() % 40);
  for (int i = 0; i < transfers; ++i) {
    const std::uint32_t p = ports[rng() % ports.size()];
    const bool write = rng() % 3 == 0;
    switch (rng() % 4) {
      case 0: {  // a tile: many rows at a pitch (many banks busy at once)
        const std::uint64_t rows = 8 + rng() % 120, row = 64u << (rng() % 5);
        const std::uint64_t pitch = row * (1 + rng() % 80) + 256 * (rng() % 3);
        const std::uint64_t addr = rng() % (cap / 2 / 64) * 64;
        h.submit(p, DmaDescriptor::strided(addr, rows, row, pitch), write);
        break;
      }
      case 1:  // linear, sometimes unaligned
        h.submit(p, DmaDescriptor::linear(rng() % (cap / 2), 32 * (1 + rng() % 2048) + rng() % 32),
                 write);
        break;
      case 2: {  // a gather
        std::vector<std::uint64_t> a(1 + rng() % 400);
        for (auto& x : a) x = rng() % (cap / 64) * 64;
        h.submit_gather(p, std::move(a), write);
        break;
      }
      default:  // a short one
        h.submit(p, DmaDescriptor::linear(rng() % (cap / 64) * 64, 64), write);
        break;
    }
    if (rng() % 3 == 0) {
      t += static_cast<Cycle>(rng() % 3000);
      h.advance_to(t);
      rec.take(out);
    }
  }
  rec.finish(out);
  return out;
}

}  // namespace

TEST_CASE("HBM fast paths issue the reference path's commands at its cycles",
          "[unit][hbm][golden]") {
  Rng rng(2026);
  std::uint64_t fast = 0, commands = 0;
  for (int i = 0; i < 40; ++i) {
    const HbmConfig cfg = random_config(rng);
    const std::uint64_t seed = rng();
    const HbmTrace ref = run(cfg, seed, false);
    const HbmTrace got = run(cfg, seed, true);
    INFO("case " << i << " seed " << seed << " preset " << hbm_preset_name(cfg.preset));
    CHECK(ref.fast == 0);
    systole::models::test::check_same(ref, got);
    fast += got.fast;
    commands += got.commands.size();
  }
  // The comparison means something only if the fast paths ran often.
  WARN("fast decisions " << fast << " of " << commands << " commands");
  CHECK(fast * 20 > commands);
}

namespace {

// Tile-heavy traffic (many banks with queued row hits and pending activates at once, as the
// TPU's DMA engines make it), advanced in short random steps; after each step the fast run's
// candidate slots must keep their invariants (HbmController::slots_consistent).
// A transfer is a write with probability 1 / `write_in`.
HbmTrace run_tiles(const HbmConfig& cfg, std::uint64_t seed, bool fast, bool& consistent,
                   std::uint64_t write_in = 4) {
  Rng rng(seed);
  HbmTiming h(cfg);
  HbmRecorder rec(h);
  h.set_fast(fast);
  HbmTrace out;
  const std::uint64_t cap = cfg.capacity.value();
  std::vector<std::uint32_t> ports;
  const std::uint32_t nports = 1 + static_cast<std::uint32_t>(rng() % 4);
  for (std::uint32_t i = 0; i < nports; ++i)
    ports.push_back(h.add_port(64u << (rng() % 6), 64u << (rng() % 4),
                               rng() % 2 ? 0 : static_cast<Cycle>(rng() % 700)));
  Cycle t = 0;
  const int transfers = 10 + static_cast<int>(rng() % 30);
  for (int i = 0; i < transfers; ++i) {
    const std::uint32_t p = ports[rng() % ports.size()];
    const std::uint64_t rows = 16 + rng() % 240, row = 256u << (rng() % 3);
    const std::uint64_t pitch = row * (1 + rng() % 100) + 256 * (rng() % 4);
    const std::uint64_t addr = rng() % (cap / 2 / 256) * 256;
    h.submit(p, DmaDescriptor::strided(addr, rows, row, pitch), rng() % write_in == 0);
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
      t += static_cast<Cycle>(1 + rng() % 400);
      h.advance_to(t);
      for (std::size_t c = 0; c < h.channels(); ++c)
        consistent = consistent && h.controller(c).slots_consistent();
    }
    rec.take(out);
  }
  rec.finish(out);
  for (std::size_t c = 0; c < h.channels(); ++c)
    consistent = consistent && h.controller(c).slots_consistent();
  return out;
}

}  // namespace

TEST_CASE(
    "HBM age-ordered column slots: the early-stopped pick and skipped row scans equal "
    "the full scans",
    "[unit][hbm][golden]") {
  Rng rng(20261127);
  std::uint64_t early = 0, skips = 0, decisions_cmds = 0;
  for (int i = 0; i < 60; ++i) {
    HbmConfig cfg = random_config(rng);
    cfg.scheduler = SchedulerKind::kFrFcfs;  // the fast paths are FR-FCFS's
    const std::uint64_t seed = rng();
    bool ok_ref = true, ok_fast = true;
    const HbmTrace ref = run_tiles(cfg, seed, false, ok_ref);
    const HbmTrace got = run_tiles(cfg, seed, true, ok_fast);
    INFO("case " << i << " seed " << seed << " preset " << hbm_preset_name(cfg.preset));
    CHECK(ok_fast);
    CHECK(ok_ref);
    CHECK(ref.fast == 0);
    systole::models::test::check_same(ref, got);
    early += got.early;
    skips += got.skips;
    decisions_cmds += got.commands.size();
  }
  // Both shortcuts must have run often for the comparison to mean something.
  WARN("early stops " << early << ", row skips " << skips << " for " << decisions_cmds
                      << " commands");
  CHECK(early * 10 > decisions_cmds);
  CHECK(skips * 10 > decisions_cmds);
}

TEST_CASE(
    "HBM lean decisions, reads and write drains, with refreshes between, equal the reference "
    "scan",
    "[unit][hbm][golden]") {
  // HbmController::decide takes its lean path (one copy per kind served) unless a refresh is
  // due; the reference (set_fast(false)) always takes decide_full's full scan. Half the
  // transfers write (the queues drain in batches: the write copy runs), and tREFI is short in
  // half the cases (decisions switch between the paths around each refresh).
  Rng rng(20261128);
  std::uint64_t lean[2] = {0, 0}, full = 0, refreshes = 0, commands = 0;
  for (int i = 0; i < 40; ++i) {
    HbmConfig cfg = random_config(rng);
    cfg.scheduler = SchedulerKind::kFrFcfs;  // the lean path is FR-FCFS's
    cfg.refresh = RefreshKind::kAllBank;
    if (rng() % 2) cfg.t_refi = 2 * cfg.t_rfc + static_cast<std::int64_t>(rng() % 1000);
    const std::uint64_t seed = rng();
    bool ok_ref = true, ok_fast = true;
    const HbmTrace ref = run_tiles(cfg, seed, false, ok_ref, 2);
    const HbmTrace got = run_tiles(cfg, seed, true, ok_fast, 2);
    INFO("case " << i << " seed " << seed << " preset " << hbm_preset_name(cfg.preset));
    CHECK(ok_fast);
    CHECK(ref.lean[0] + ref.lean[1] == 0);
    systole::models::test::check_same(ref, got);
    for (int k = 0; k < 2; ++k) lean[k] += got.lean[k];
    full += got.full;
    refreshes += got.refreshes;
    commands += got.commands.size();
  }
  // Each copy of the lean path, and the full one around refreshes, must have run often.
  WARN("lean decisions " << lean[0] << " reading, " << lean[1] << " writing; full " << full << "; "
                         << refreshes << " refreshes in " << commands << " commands");
  CHECK(lean[0] * 5 > commands);
  CHECK(lean[1] * 10 > commands);
  CHECK(full > refreshes);
  CHECK(refreshes > 1000);  // (thousands of switches between the paths)
}
