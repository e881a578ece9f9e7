// HbmTiming::next_completion_bound (read off per-transfer keys kept in two heaps) against the
// scan over every transfer it replaced (completion_bound_by_scan): random memories and random
// traffic (ports with random outstanding limits, request sizes and response latencies; tiles,
// linear ranges, unaligned pieces, gathers, reads and writes), advanced in random steps and to
// the bound itself as the SystemC shell does; the two must agree at every step.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/hbm/hbm_timing.h"
#include "tests/unit/hbm/hbm_trace.h"

using namespace systole::models;
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
