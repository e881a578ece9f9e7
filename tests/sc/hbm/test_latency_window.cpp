// The memory's interface latency sits inside the requester's outstanding window (issue 10, 5c):
// a request holds its slot until its data has arrived, so one stream of N outstanding requests
// of S bytes against a memory of latency L and bandwidth B moves at most N x S / L (Little's
// law) and no more than B. Exact on the bandwidth model (a request holds its slot for L from its
// issue); on the bank-level model bounded by N x S / L and, when the DRAM is not
// the limit, within 5% of N x S / (L + the DRAM's unloaded time for one window of requests).
// Under the old model (latency added after the window freed) the window-limited cases run at
// the DRAM's bandwidth, several times N x S / L, and fail. One elaboration per TEST_CASE.
#include <catch2/catch.hpp>

#include <systemc>

#include <functional>

#include "models/hbm/bandwidth_memory_module.h"
#include "models/hbm/hbm_module.h"
#include "tests/support/sc_bench.h"

using namespace systole;
using namespace systole::models;
using test::Bench;

namespace {

MemoryTransfer stream(std::uint64_t addr, std::uint64_t bytes, std::uint16_t engine,
                      std::uint32_t outstanding, std::uint32_t request = 512) {
  MemoryTransfer t;
  t.desc = DmaDescriptor::linear(addr, bytes);
  t.requester = engine;
  t.request_bytes = request;
  t.max_outstanding = outstanding;
  return t;
}

/// Picoseconds one transfer of `t` takes from time 0 on `mem`.
double elapsed_ps(MemoryIf& mem, const MemoryTransfer& t) {
  double ps = 0;
  Bench b([&] {
    mem.transfer(t);
    ps = static_cast<double>(sc_core::sc_time_stamp().value());
  });
  sc_core::sc_start();
  return ps;
}

constexpr double kLatencyPs = 500'000;  // 500 ns
// The schema's acceptance queue (hbm.transfer_queue): each test has one transfer per requester.
const auto kDepth =
    static_cast<std::uint32_t>(HbmConfig::from_preset(HbmPreset::kHbm2).transfer_queue);

}  // namespace

// B = 1 byte/ps, S = 512 B, L = 500,000 ps.
TEST_CASE("Bandwidth memory: a window-limited stream moves N x S per round trip, exactly",
          "[sc][hbm][latency]") {
  BandwidthMemoryModule mem("mem", 1e12, kLatencyPs, kDepth);
  const std::uint32_t n = 64;
  const std::uint64_t bytes = 10 * n * 512;  // ten round trips of the window
  const double ps = elapsed_ps(mem, stream(0, bytes, 0, n));
  CHECK(ps == 10 * kLatencyPs);  // N x S / L = 65.5 GB/s, not B = 1 TB/s
}

TEST_CASE("Bandwidth memory: a deep window reaches the bandwidth, plus one latency",
          "[sc][hbm][latency]") {
  BandwidthMemoryModule mem("mem", 1e12, kLatencyPs, kDepth);
  const std::uint64_t bytes = 2 * 4096 * 512;
  CHECK(elapsed_ps(mem, stream(0, bytes, 0, 4096)) == static_cast<double>(bytes) + kLatencyPs);
}

TEST_CASE("Bandwidth memory: two window-limited streams do not wait for each other",
          "[sc][hbm][latency]") {
  BandwidthMemoryModule mem("mem", 1e12, kLatencyPs, kDepth);
  const std::uint64_t bytes = 10 * 64 * 512;
  double done[2] = {0, 0};
  Bench b([&] {
    const auto h0 = mem.begin(stream(0, bytes, 0, 64));
    const auto h1 = mem.begin(stream(1 << 30, bytes, 1, 64));
    mem.finish(h0);
    done[0] = static_cast<double>(sc_core::sc_time_stamp().value());
    mem.finish(h1);
    done[1] = static_cast<double>(sc_core::sc_time_stamp().value());
  });
  sc_core::sc_start();
  CHECK(done[0] == 10 * kLatencyPs);
  CHECK(done[1] == 10 * kLatencyPs);  // 2 x 65.5 GB/s fit in 1 TB/s
}

namespace {

/// Achieved bytes per second of one read stream of `outstanding` requests through the
/// bank-level HBM2 (TPU v4: 4 stacks, 1.23 TB/s) with a 500 ns interface latency. The model cuts
/// requests at its 256 B interleave blocks and counts the pieces against the window, so 512 B
/// DMA requests are 256 B memory requests: S = 256 B below.
double bank_rate(std::uint32_t outstanding, std::uint64_t bytes) {
  HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
  cfg.stacks = 4;
  cfg.latency = Picoseconds(static_cast<std::uint64_t>(kLatencyPs));
  HbmModule hbm("hbm", cfg);
  return static_cast<double>(bytes) / (elapsed_ps(hbm, stream(0, bytes, 0, outstanding)) * 1e-12);
}

}  // namespace

TEST_CASE("Bank HBM: a window-limited stream is bounded by N x S / L and reaches it",
          "[sc][hbm][latency]") {
  const std::uint32_t n = 64;
  const double s = 256;                                // the interleave block
  const double little = n * s / (kLatencyPs * 1e-12);  // 32.8 GB/s, 3% of the peak
  const double rate = bank_rate(n, 20 * n * 512);
  // One window of 64 pieces over 32 channels: two per channel, each a row miss and 8 bursts of
  // 32 B in one bank: tRCD + tCL + 2 x 8 x tBL = 17 + 17 + 32 = 66 cycles of 833 ps = 55 ns.
  // (A target of 0.9 x N x S / L, set first, missed at 0.88: this DRAM time is not negligible.)
  const double dram_ps = 66 * 1e12 / 1.2e9;
  const double derived = n * s / ((kLatencyPs + dram_ps) * 1e-12);  // 29.5 GB/s
  WARN("achieved " << rate / 1e9 << " GB/s, N x S / L = " << little / 1e9
                   << " GB/s, with the DRAM's time " << derived / 1e9 << " GB/s");
  CHECK(rate <= little);
  CHECK(rate >= 0.95 * derived);
}

TEST_CASE("Bank HBM: a window covering latency x bandwidth reaches the DRAM bandwidth",
          "[sc][hbm][latency]") {
  // With a window deep enough to cover latency x bandwidth, the stream is DRAM-bound: the same
  // rate as with no latency, within the one latency it adds at the end.
  const std::uint32_t n = 8192;  // 4 MiB in flight > 1.23 TB/s x 530 ns
  const std::uint64_t bytes = 64ull << 20;
  const double rate = bank_rate(n, bytes);
  HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
  cfg.stacks = 4;
  WARN("achieved " << rate / 1e9 << " GB/s of " << cfg.bandwidth.value() / 1e9);
  CHECK(rate <= cfg.bandwidth.value());
  CHECK(rate >= 0.8 * cfg.bandwidth.value());
}
