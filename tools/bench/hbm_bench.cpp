// Speed of the bank-level HBM model (plain C++, one core): 64-byte requests per second through
// the TPU v4 HBM2 system (4 stacks, 32 channels, FR-FCFS, refresh on), for a streaming read, a
// streaming write and random reads, each from one requester with 4096 requests in flight. Prints
// requests per wall-second and per CPU-second (the two differ when the machine is shared) and
// the bandwidth efficiency the model reached. Patterns 3 and 4 are the TPU v4 chip's DMA traffic
// (tiles(): four engines, 512-byte requests in 256-byte pieces, a response latency; 3 reads, 4
// with one engine storing), counted in 32-byte bursts; there the first argument is the pieces.
// Usage: bench_hbm [requests per pattern] [stacks] [pattern 0-4, -1 all] [channels per stack]
//                  [response latency, memory cycles; default 0]
// (fewer stacks or channels: a smaller memory, e.g. to see how much cache misses cost; a
// response latency holds each request's slot that much longer, issue 10 5c: 600 = 500 ns).
// Measured (one core of the shared 2-core development VM, 4 M requests, median of 3 runs
// interleaved with the model before its speed work, which issues the same commands:
// tests/unit/hbm/test_hbm_golden.cpp): stream read 6.63 M requests/s (before 5.05), stream
// write 6.48 M (4.94), random read 2.37 M (2.21). After the AVX2 candidate scan and the
// completion sweep over cycles with completions (median of 3 CPU-second figures, interleaved
// with the commit before them): stream read 7.22 M (6.94), stream write 6.89 M (6.68), random
// read 2.54 M (2.43). After the AVX2 scan gave way to candidate slots kept as columns then rows
// (same measure, interleaved with the code before it): stream read 7.96 M (7.91), stream write
// 7.74 M (7.54), random read 2.91 M (2.77). The GPT-3 block of tools/bench/bench_zoo.sh gained
// more: 9.7-9.9 s -> 8.9-9.3 s. After the walk over the oldest requests for the FR-FCFS column
// pick and the response FIFOs (2026-11-26, callgrind, 200k, M instructions): tile read 1,884 ->
// 1,443, tile read+write 1,893 -> 1,521, stream read 443 -> 442, random read 817 -> 830
// (models/hbm/README.md, "Where the time goes"). Windows as long as the ports' response latency
// (2026-11-26, callgrind, 200k, M instructions): tile read 1,576 -> 1,594, stream read (no
// latency: short windows) 475.6 -> 479.7; timed, tile read 5.80 -> 6.20 M bursts/CPU-s (1M,
// medians of 3 interleaved); the SystemC zoo points gained 5-6% ("Long windows"). Column slots
// in age order (the pick is the first ready one), row scans skipped while none can be ready,
// the channel pass's arrivals by pointer (2026-11-26, callgrind, 200k, M instructions, the same
// cycles): tile read 1,594 -> 1,275 (1,003 -> 802 per burst), tile read+write 1,673 -> 1,336,
// stream read 478 -> 423, stream write 480 -> 427, random read 892 -> 794 ("Cheaper
// decisions"). The completion bound's heaps (2026-11-27, issues 11/14; this benchmark never reads
// the bound, but each burst keeps its key): tile read 1,274.7 -> 1,292.5 (802 -> 813 per burst),
// stream read 422.7 -> 429.6 ("The completion bound"). The lean decision path, one copy per kind
// served, the window pass up to each arrival, bursts tallied inline (2026-11-27, issues 14/11;
// Release without LTO): tile read 1,292.5 -> 1,120.6 (813 -> 705 per burst), stream read
// 429.6 -> 386.3 ("A leaner decision").
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

#include "models/hbm/hbm_timing.h"

using namespace systole::models;

namespace {

// The TPU v4 chip's traffic (configs/presets/tpuv4_chip.yaml, as the GPT-3 block of
// tools/bench/bench_zoo.sh makes it): four DMA engines, each with 2048 requests of 512 bytes in
// flight (256-byte pieces at the interleave), 600 memory cycles (500 ns) of response latency,
// moving weight tiles of 512 rows x 1 KiB at a 73,728-byte pitch (bf16 rows of 36,864
// columns: GPT-3's QKV weights) under the `mix` address hash. `n` 256-byte pieces in all; with
// `write` the fourth engine stores its tiles.
void tiles(HbmConfig cfg, std::uint64_t n, bool write, const char* name) {
  cfg.address_hash = AddressHash::kMix;
  HbmTiming hbm(cfg);
  constexpr std::uint32_t kPorts = 4;
  constexpr std::uint64_t kRows = 512, kRow = 1024, kPitch = 73'728;
  std::uint32_t ports[kPorts];
  for (auto& p : ports) p = hbm.add_port(2048, 512, 600);
  const std::uint64_t pieces_per_tile = kRows * kRow / 256;
  const std::uint64_t count = std::max<std::uint64_t>(1, n / pieces_per_tile);
  const std::uint64_t region = cfg.capacity.value() / kPorts;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint32_t p = static_cast<std::uint32_t>(k % kPorts);
    const std::uint64_t addr = p * region + (k / kPorts) % 36 * kRow;
    hbm.submit(ports[p], DmaDescriptor::strided(addr, kRows, kRow, kPitch), write && p == 3);
  }
  const Cycle end = hbm.run_until_idle();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double bytes = static_cast<double>(count * kRows * kRow);
  const double bursts = bytes / static_cast<double>(hbm.address_map().atom_bytes());
  std::printf(
      "%-15s %6.2f M bursts/wall-s    %6.2f M bursts/CPU-s    efficiency %.3f of peak, %lld "
      "cycles\n",
      name, bursts / wall / 1e6, bursts / cpu / 1e6,
      bytes / (static_cast<double>(end) * hbm.peak_bytes_per_cycle()), static_cast<long long>(end));
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4'000'000;
  HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
  // Fewer stacks or channels per stack (the same banks each): capacity and bandwidth shrink
  // with the count, the working set too.
  const auto resize = [&cfg](std::int64_t& count, const char* arg) {
    const std::int64_t to = std::strtoll(arg, nullptr, 10);
    cfg.capacity = systole::Bytes(cfg.capacity.value() / static_cast<std::uint64_t>(count) *
                                  static_cast<std::uint64_t>(to));
    cfg.bandwidth = systole::BytesPerSecond(cfg.bandwidth.value() / static_cast<double>(count) *
                                            static_cast<double>(to));
    count = to;
  };
  if (argc > 2) resize(cfg.stacks, argv[2]);
  if (argc > 4) resize(cfg.channels, argv[4]);
  std::printf(
      "bank-level HBM: %s, %lld stacks x %lld channels, peak %.4g TB/s; %llu 64-byte "
      "requests per pattern, 4096 in flight\n",
      hbm_preset_name(cfg.preset), static_cast<long long>(cfg.stacks),
      static_cast<long long>(cfg.channels), cfg.bandwidth.value() / 1e12,
      static_cast<unsigned long long>(n));
  const char* names[] = {"stream read", "stream write", "random read", "tile read",
                         "tile read+write"};
  const int only = argc > 3 ? std::atoi(argv[3]) : -1;  // one pattern (0-4) or all
  for (int pattern = 0; pattern < 5; ++pattern) {
    if (only >= 0 && pattern != only) continue;
    if (pattern >= 3) {
      tiles(cfg, n, pattern == 4, names[pattern]);
      continue;
    }
    std::vector<std::uint64_t> addrs;
    if (pattern == 2) {
      std::mt19937_64 rng(1);
      addrs.resize(n);
      for (auto& a : addrs) a = rng() % (cfg.capacity.value() / 64) * 64;
    }
    HbmTiming hbm(cfg);
    const Cycle latency = argc > 5 ? std::strtoll(argv[5], nullptr, 10) : 0;
    const auto port = hbm.add_port(4096, 64, latency);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    if (pattern == 2)
      hbm.submit_gather(port, std::move(addrs), false);
    else
      hbm.submit(port, DmaDescriptor::linear(0, n * 64), pattern == 1);
    const Cycle end = hbm.run_until_idle();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double eff =
        static_cast<double>(n * 64) / (static_cast<double>(end) * hbm.peak_bytes_per_cycle());
    std::printf("%-13s %6.2f M requests/wall-s  %6.2f M requests/CPU-s  efficiency %.3f of peak\n",
                names[pattern], static_cast<double>(n) / wall / 1e6,
                static_cast<double>(n) / cpu / 1e6, eff);
  }
  return 0;
}
