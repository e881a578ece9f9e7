#pragma once
// What an HbmTiming run did, for the tests that compare a fast path with its reference: every
// issued command (channel, cycle, command, target) and every transfer completion (id, port,
// cycle), and how often the fast paths ran.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "models/hbm/hbm_timing.h"

namespace systole::models::test {

using Rng = std::mt19937_64;

/// One of the presets, drawn at random.
inline HbmConfig random_preset(Rng& rng) {
  const HbmPreset presets[] = {HbmPreset::kHbm2, HbmPreset::kHbm2e, HbmPreset::kHbm3,
                               HbmPreset::kHbm3e};
  return HbmConfig::from_preset(presets[rng() % 4]);
}

/// `cfg` cut down to one stack of `channels` channels, its capacity scaled to them.
inline HbmConfig one_stack(HbmConfig cfg, std::int64_t channels) {
  const std::int64_t before = cfg.total_channels();
  cfg.stacks = 1;
  cfg.channels = channels;
  cfg.capacity = Bytes(cfg.capacity.value() / static_cast<std::uint64_t>(before) *
                       static_cast<std::uint64_t>(cfg.total_channels()));
  return cfg;
}

struct HbmTrace {
  std::vector<std::tuple<std::size_t, Cycle, HbmCommand, std::uint32_t>> commands;
  std::vector<std::tuple<TransferId, std::uint32_t, Cycle>> completions;
  std::uint64_t fast = 0, long_windows = 0, refreshes = 0;
  std::uint64_t early = 0, skips = 0;        // HbmController::early_stops, row_skips
  std::uint64_t lean[2] = {0, 0}, full = 0;  // HbmController::lean_decisions, full_decisions
};

/// Logs every command of `h` from its construction on; take() and finish() fill a trace.
class HbmRecorder {
 public:
  explicit HbmRecorder(HbmTiming& h) : h_(h), logs_(h.channels()) {
    for (std::size_t c = 0; c < h.channels(); ++c) h.controller(c).set_log(&logs_[c]);
  }
  /// The transfers completed so far.
  void take(HbmTrace& out) {
    for (const HbmCompletion& x : h_.take_completed())
      out.completions.emplace_back(x.id, x.port, x.at);
  }
  /// Runs `h` until idle and records the end, the rest of the completions and the commands.
  void finish(HbmTrace& out) {
    out.completions.emplace_back(0, 0, h_.run_until_idle());
    take(out);
    for (std::size_t c = 0; c < logs_.size(); ++c) {
      for (const HbmIssued& i : logs_[c]) {
        out.commands.emplace_back(c, i.at, i.cmd, i.target);
        out.refreshes += i.cmd == HbmCommand::kRefresh;
      }
      out.fast += h_.controller(c).fast_decisions();
      out.early += h_.controller(c).early_stops();
      out.skips += h_.controller(c).row_skips();
      for (int k = 0; k < 2; ++k) out.lean[k] += h_.controller(c).lean_decisions(k);
      out.full += h_.controller(c).full_decisions();
    }
    out.long_windows = h_.long_windows();
  }

 private:
  HbmTiming& h_;
  std::vector<std::vector<HbmIssued>> logs_;
};

/// The same commands (the first that differs is reported) and the same completions.
inline void check_same(const HbmTrace& ref, const HbmTrace& got) {
  const std::size_t n = std::min(got.commands.size(), ref.commands.size());
  const auto at =
      std::mismatch(ref.commands.begin(), ref.commands.begin() + n, got.commands.begin());
  CHECK(static_cast<std::size_t>(at.first - ref.commands.begin()) == ref.commands.size());
  CHECK(got.commands.size() == ref.commands.size());
  CHECK(got.completions == ref.completions);
}

}  // namespace systole::models::test
