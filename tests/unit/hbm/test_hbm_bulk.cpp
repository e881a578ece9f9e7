// The bank-level HBM model's whole fast path (HbmTiming::set_fast: the long windows bounded by
// the ports' response latency, and every controller's fast decisions) against the reference
// (short windows, full scans) on random request streams: reads, writes and mixes; linear
// streams, strided tiles (the TPU's DMA traffic), random gathers; one to five stacks with 1 to
// 16 channels each (five-stack GPU memories: 40 and 80 channels), every preset, both address
// hashes, refresh on (runs cross many refreshes) or off, ports with response latencies (the
// long windows) and some without (the short ones). Every issued command (channel, cycle,
// command, target) and every transfer completion (id, port, cycle) must be the same.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/hbm/hbm_timing.h"
#include "tests/unit/hbm/hbm_trace.h"

using namespace systole::models;
using systole::Bytes;
using systole::models::test::HbmRecorder;
using systole::models::test::HbmTrace;
using systole::models::test::Rng;

namespace {

HbmConfig random_memory(Rng& rng) {
  HbmConfig cfg = systole::models::test::random_preset(rng);
  const std::int64_t before = cfg.total_channels();
  switch (rng() % 4) {
    case 0:  // a five-stack GPU memory (A100: 40 channels, H100: 80)
      cfg.stacks = 5;
      break;
    case 1:  // a few stacks, all their channels
      cfg.stacks = static_cast<std::int64_t>(1 + rng() % 4);
      break;
    default:  // one stack, 1 to 8 channels
      cfg.stacks = 1;
      cfg.channels = static_cast<std::int64_t>(1 + rng() % 8);
      break;
  }
  // The rows per bank kept: capacity per channel as the preset's.
  cfg.capacity = Bytes(cfg.capacity.value() / static_cast<std::uint64_t>(before) *
                       static_cast<std::uint64_t>(cfg.total_channels()));
  cfg.scheduler = rng() % 5 ? SchedulerKind::kFrFcfs : SchedulerKind::kFcfs;
  cfg.page_policy = rng() % 4 ? PagePolicy::kOpen : PagePolicy::kClosed;
  const std::int64_t queues[] = {8, 16, 32, 64};
  cfg.read_queue = queues[rng() % 4];
  cfg.write_queue = queues[rng() % 4];
  cfg.address_hash = rng() % 2 ? AddressHash::kMix : AddressHash::kXor;
  if (rng() % 3 == 0) cfg.t_refi = 2 * cfg.t_rfc + static_cast<std::int64_t>(rng() % 2000);
  if (rng() % 8 == 0) cfg.refresh = RefreshKind::kNone;
  return cfg;
}

// One run of the traffic that `seed` draws, with the fast paths on or off.
HbmTrace run(const HbmConfig& cfg, std::uint64_t seed, bool fast) {
  Rng rng(seed);
  HbmTiming h(cfg);
  h.set_fast(fast);
  HbmRecorder rec(h);
  HbmTrace out;
  const std::uint64_t cap = cfg.capacity.value();
  std::vector<std::uint32_t> ports;
  const std::uint32_t nports = 1 + static_cast<std::uint32_t>(rng() % 4);
  const bool no_latency = rng() % 6 == 0;  // a port without one: short windows only
  for (std::uint32_t i = 0; i < nports; ++i) {
    const std::uint32_t outstanding = 16u << (rng() % 8);  // 16 .. 2048
    const std::uint32_t request = 32u << (rng() % 5);      // 32 .. 512 B
    Cycle latency = rng() % 3 ? 600 : static_cast<Cycle>(1 + rng() % 1000);
    if (no_latency && i == 0) latency = 0;
    ports.push_back(h.add_port(outstanding, request, latency));
  }
  const int transfers = 8 + static_cast<int>(rng() % 24);
  const std::uint64_t budget = 12'000 * h.channels();  // 32-byte bursts, about
  std::uint64_t bytes = 0;
  Cycle t = 0;
  for (int i = 0; i < transfers && bytes < 32 * budget; ++i) {
    const std::uint32_t p = ports[rng() % ports.size()];
    const bool write = rng() % 3 == 0;
    switch (rng() % 4) {
      case 0: {  // a weight tile: 1 KiB rows at a pitch, 256-byte pieces (the TPU's DMA)
        const std::uint64_t rows = 16 + rng() % 240, row = 256u << (rng() % 3);
        const std::uint64_t pitch = row * (1 + rng() % 72) + 256 * (rng() % 3);
        const std::uint64_t addr = rng() % (cap / 2 / 256) * 256;
        h.submit(p, DmaDescriptor::strided(addr, rows, row, pitch), write);
        bytes += rows * row;
        break;
      }
      case 1: {  // a linear stream
        const std::uint64_t n = 64 * (1 + rng() % 4096);
        h.submit(p, DmaDescriptor::linear(rng() % (cap / 2 / 64) * 64, n), write);
        bytes += n;
        break;
      }
      case 2: {  // random accesses
        std::vector<std::uint64_t> a(1 + rng() % 600);
        for (auto& x : a) x = rng() % (cap / 64) * 64;
        bytes += a.size() * 64;
        h.submit_gather(p, std::move(a), write);
        break;
      }
      default:  // a short one
        h.submit(p, DmaDescriptor::linear(rng() % (cap / 64) * 64, 64), write);
        bytes += 64;
        break;
    }
    if (rng() % 3 == 0) {  // the SystemC shell advances between submissions
      t += static_cast<Cycle>(rng() % 4000);
      h.advance_to(t);
      rec.take(out);
    }
  }
  rec.finish(out);
  return out;
}

}  // namespace

TEST_CASE("HBM bulk fast path issues the reference's commands and completions",
          "[unit][hbm][golden]") {
  Rng rng(20261126);
  std::uint64_t long_windows = 0, commands = 0, refreshes = 0, gpu_cases = 0;
  for (int i = 0; i < 48; ++i) {
    const HbmConfig cfg = random_memory(rng);
    const std::uint64_t seed = rng();
    const HbmTrace ref = run(cfg, seed, false);
    const HbmTrace got = run(cfg, seed, true);
    INFO("case " << i << " seed " << seed << " preset " << hbm_preset_name(cfg.preset) << ", "
                 << cfg.total_channels() << " channels");
    CHECK(ref.long_windows == 0);
    CHECK(ref.fast == 0);
    systole::models::test::check_same(ref, got);
    long_windows += got.long_windows;
    commands += got.commands.size();
    refreshes += got.refreshes;
    gpu_cases += cfg.stacks == 5;
  }
  // The comparison means something only if the fast path ran, on the memories and traffic it
  // is meant for.
  WARN("long windows " << long_windows << ", commands " << commands << ", refreshes " << refreshes
                       << ", five-stack cases " << gpu_cases);
  CHECK(long_windows > 1000);
  CHECK(refreshes > 1000);
  CHECK(gpu_cases >= 5);
}
