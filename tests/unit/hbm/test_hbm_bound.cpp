// HbmTiming::next_completion_bound (read off per-transfer keys kept in two heaps) against the
// scan over every transfer it replaced (completion_bound_by_scan): random memories and random
// traffic (ports with random outstanding limits, request sizes and response latencies; tiles,
// linear ranges, unaligned pieces, gathers, reads and writes), advanced in random steps and to
// the bound itself as the SystemC shell does; the two must agree at every step.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "models/hbm/hbm_timing.h"
#include "tests/unit/hbm/hbm_trace.h"

using namespace systole::models;
using systole::Bytes;
using systole::models::test::Rng;

namespace {

HbmConfig small_config(Rng& rng) {
  HbmConfig cfg = systole::models::test::random_preset(rng);
  cfg = systole::models::test::one_stack(cfg, std::int64_t{1} << (rng() % 3));
  if (rng() % 4 == 0) cfg.page_policy = PagePolicy::kClosed;
  return cfg;
}

void submit_random(HbmTiming& h, Rng& rng, std::uint32_t port, std::uint64_t cap) {
  const bool write = rng() % 3 == 0;
  switch (rng() % 4) {
    case 0: {
      const std::uint64_t rows = 1 + rng() % 64, row = 32u << (rng() % 5);
      const std::uint64_t pitch = row * (1 + rng() % 40) + 32 * (rng() % 3);
      h.submit(port, DmaDescriptor::strided(rng() % (cap / 2 / 32) * 32, rows, row, pitch), write);
      break;
    }
    case 1:  // linear, sometimes unaligned and shorter than a burst
      h.submit(port, DmaDescriptor::linear(rng() % (cap / 2), rng() % 6000), write);
      break;
    case 2: {
      std::vector<std::uint64_t> a(1 + rng() % 50);
      for (auto& x : a) x = rng() % (cap / 64) * 64;
      h.submit_gather(port, std::move(a), write);
      break;
    }
    default:
      h.submit(port, DmaDescriptor::linear(rng() % (cap / 64) * 64, 64), write);
      break;
  }
}

}  // namespace

TEST_CASE("HBM completion bound from its heaps equals the scan over every transfer",
          "[unit][hbm][golden]") {
  Rng rng(1127);
  std::uint64_t checks = 0, exact = 0;
  for (int i = 0; i < 600; ++i) {
    const HbmConfig cfg = small_config(rng);
    HbmTiming h(cfg);
    if (rng() % 4 == 0) h.set_fast(false);
    std::vector<std::uint32_t> ports;
    for (int p = 1 + static_cast<int>(rng() % 4); p > 0; --p)
      ports.push_back(h.add_port(4u << (rng() % 8), 32u << (rng() % 5),
                                 rng() % 3 ? static_cast<Cycle>(rng() % 700) : 0));
    INFO("case " << i << " preset " << hbm_preset_name(cfg.preset));
    bool same = true;
    const auto check = [&] {
      const Cycle got = h.next_completion_bound(), ref = h.completion_bound_by_scan();
      same = same && got == ref;
      ++checks;
      return got;
    };
    const int steps = 5 + static_cast<int>(rng() % 30);
    for (int s = 0; s < steps; ++s) {
      for (int k = static_cast<int>(rng() % 4); k > 0; --k)
        submit_random(h, rng, ports[rng() % ports.size()], cfg.capacity.value());
      check();
      if (rng() % 2) {
        h.advance_to(h.now() + static_cast<Cycle>(rng() % 400));
      } else {  // to the bound, as HbmModule does
        const Cycle b = check();
        if (b < kNever) h.advance_to(b);
        exact += !h.take_completed().empty();
      }
      check();
    }
    while (!h.idle()) {
      const Cycle b = check();
      REQUIRE(b < kNever);
      h.advance_to(b);
      exact += !h.take_completed().empty();
    }
    check();
    CHECK(same);
  }
  WARN("completion bound: " << checks << " checks, " << exact << " wakes met a completion");
  CHECK(checks > 10000);
  CHECK(exact > 1000);
}

TEST_CASE("HBM slot heap keeps the least key of its slots", "[unit][hbm]") {
  Rng rng(27);
  HbmSlotHeap h;
  std::vector<Cycle> keys(64, kNever);  // the reference: each slot's key, kNever when absent
  for (int i = 0; i < 20000; ++i) {
    const auto slot = static_cast<std::uint32_t>(rng() % keys.size());
    if (rng() % 4 == 0) {
      h.erase(slot);
      keys[slot] = kNever;
    } else {
      const auto key = static_cast<Cycle>(rng() % 1000);
      h.set(slot, key);
      keys[slot] = key;
    }
    const Cycle least = *std::min_element(keys.begin(), keys.end());
    REQUIRE(h.top() == least);
    if (i % 16 == 0) {  // a copy drained from the top gives every key in order
      HbmSlotHeap d = h;
      std::vector<Cycle> got, want;
      for (const Cycle k : keys)
        if (k < kNever) want.push_back(k);
      std::sort(want.begin(), want.end());
      while (d.size()) {
        got.push_back(d.top());
        d.erase(d.top_slot());
      }
      REQUIRE(got == want);
    }
    REQUIRE(h.size() == static_cast<std::size_t>(std::count_if(
                            keys.begin(), keys.end(), [](Cycle k) { return k < kNever; })));
  }
}

namespace {

/// A memory whose organisation is not one of the presets: one or two pseudo-channels, one to
/// four bank groups, and bursts of 32 or 64 B (a DDR3/DDR4 channel moves 64 B per burst).
HbmConfig odd_config(Rng& rng) {
  HbmConfig cfg = small_config(rng);
  if (rng() % 2) {  // BL8 on a 64-bit bus at two beats per clock: 64 B in 4 clocks
    cfg.pseudo_channels = 1;
    cfg.channel_width = 64;
    cfg.burst_length = 8;
    cfg.beats_per_clock = 2;
    cfg.t_ccd_s = std::max<std::int64_t>(cfg.t_ccd_s, 4);
    cfg.t_ccd_l = std::max<std::int64_t>(cfg.t_ccd_l, 4);
  }
  if (rng() % 2) {
    cfg.banks_per_group *= cfg.bank_groups;
    cfg.bank_groups = 1;
  }
  const double rows = cfg.rows_exact();
  cfg.capacity = Bytes(static_cast<std::uint64_t>(static_cast<double>(cfg.capacity.value()) / rows *
                                                  std::exp2(std::floor(std::log2(rows)))));
  return cfg;
}

}  // namespace

// The bound is a lower bound: advancing to it, as the SystemC shell does, meets no completion
// before it. It failed on two kinds of input before 2026-11-27: memories whose data bus takes
// more than one clock a burst per pseudo-channel beyond what the command bus allows (64 B
// bursts, one pseudo-channel: the bound spread a transfer's last bursts over the buses at a
// fractional rate), and gathers whose requests are cut at an interleave block (their bursts
// were counted from whole request sizes). HbmModule then stopped with an internal error.
TEST_CASE("HBM completion bound: no transfer completes before it", "[unit][hbm]") {
  Rng rng(20261127);
  std::uint64_t wakes = 0;
  for (int i = 0; i < 1000; ++i) {
    const HbmConfig cfg = odd_config(rng);
    HbmTiming h(cfg);
    std::vector<std::uint32_t> ports;
    for (int p = 1 + static_cast<int>(rng() % 3); p > 0; --p)
      ports.push_back(h.add_port(4u << (rng() % 8), 32u << (rng() % 5),
                                 rng() % 3 ? static_cast<Cycle>(rng() % 700) : 0));
    INFO("case " << i << " bursts of " << cfg.atom_bytes() << " B, " << cfg.pseudo_channels
                 << " PCs, " << cfg.bank_groups << " bank groups");
    for (int k = 1 + static_cast<int>(rng() % 6); k > 0; --k)
      submit_random(h, rng, ports[rng() % ports.size()], cfg.capacity.value());
    h.take_completed();
    while (!h.idle()) {
      const Cycle b = h.next_completion_bound();
      REQUIRE(b < kNever);
      REQUIRE(b > h.now());
      h.advance_to(b);  // as HbmModule does: every completion up to b is at b
      for (const HbmCompletion& c : h.take_completed()) REQUIRE(c.at == b);
      ++wakes;
    }
  }
  CHECK(wakes > 10000);
}
