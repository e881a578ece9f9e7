// Speed of the L2 timing model (plain C++, one core): line lookups per second for
//   stream read  - 64 KiB linear reads, never reused (every line misses, one fetch per transfer);
//   tile reuse   - 2-D tiles of 128 rows x 128 B (a 128 x 64 bf16 operand tile) at a 16 KiB row
//                  pitch, sweeping a 16 MiB footprint again and again (hits once warm), as a
//                  GEMM's operand tiles are re-read by the CTAs that share them;
//   stream write - 64 KiB linear writes, never reused (whole-sector allocation, write-backs).
// Each access's downstream transfers are retired at once (fetch_arrived / writeback_accepted),
// so the waiting set stays small as in a run. Prints lookups per wall-second and per CPU-second
// (they differ when the machine is shared) and the sector hit rate.
// Usage: bench_l2 [line lookups per pattern, default 50 M] [capacity MiB, default 40 (A100);
//                  it must cut into 80 slices of a power of two of 16-way sets: 5, 10, 20, 40, 80]
//                  [pattern: read, tile or write; default all three]
// Measured (shared 2-core development VM, load 2-7, 20 M lookups per pattern, best of 7 runs
// interleaved with the previous model, M lookups/CPU-s; models/l2/README.md "Speed"): tile
// reuse 41-58 (was 17-21), stream read 28-34 (was 21-26), stream write 31-34 (was 21-23).
// Before the set blocks, SSE2 compare and prefetching (first version, 10 M lookups): 5.9, 4.2
// and 19 M.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "models/l2/l2_timing.h"
#include "sim/config/node.h"
#include "sim/core/error.h"

using namespace systole;
using namespace systole::models;

namespace {

/// Runs `transfers` accesses from `make(i)`; prints the figures.
template <class Make>
void run(const char* name, const L2Config& cfg, std::uint64_t transfers, bool write, Make make) {
  L2Timing l2(cfg);
  const std::uint32_t port = l2.add_port(0);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  double now = 0;
  for (std::uint64_t i = 0; i < transfers; ++i) {
    l2.access(port, make(i), write, now += 1000);
    for (std::size_t f = 0; f < l2.fetches().size(); ++f) l2.fetch_arrived(now);
    for (std::size_t w = 0; w < l2.writebacks().size(); ++w) l2.writeback_accepted(now);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const L2Counters& k = l2.counters();
  const double n = static_cast<double>(k.line_accesses);
  std::printf(
      "%-13s %7.1f M lookups/wall-s  %7.1f M lookups/CPU-s  sector hit rate %.3f  (%.0f M "
      "lookups, %llu fetches, %llu write-backs)\n",
      name, n / wall / 1e6, n / cpu / 1e6,
      static_cast<double>(k.sector_hits) / static_cast<double>(k.sector_accesses), n / 1e6,
      static_cast<unsigned long long>(k.fetch_transfers),
      static_cast<unsigned long long>(k.writeback_transfers));
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t lookups = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50'000'000;
  const std::string capacity = argc > 2 ? std::string(argv[2]) + "MiB" : "40MiB";
  const std::string only = argc > 3 ? argv[3] : "";
  const auto wanted = [&only](const char* p) { return only.empty() || only == p; };
  L2Config cfg;
  try {
    cfg =
        L2Config::schema().load(config::parse_yaml("{capacity: " + capacity + "}", "bench"), "l2");
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::printf(
      "L2 timing model: %llu MiB, %lld x %lld slices, %lld ways, %llu B lines of %llu B "
      "sectors; %llu line lookups per pattern\n",
      static_cast<unsigned long long>(cfg.capacity.value() >> 20),
      static_cast<long long>(cfg.partitions), static_cast<long long>(cfg.slices_per_partition),
      static_cast<long long>(cfg.associativity), static_cast<unsigned long long>(cfg.line.value()),
      static_cast<unsigned long long>(cfg.sector.value()),
      static_cast<unsigned long long>(lookups));
  const std::uint64_t kStream = 64 << 10;
  if (wanted("read"))
    run("stream read", cfg, lookups / (kStream / 128), false,
        [&](std::uint64_t i) { return DmaDescriptor::linear(i * kStream, kStream); });
  // 16 MiB = 1024 rows of 16 KiB; a tile is 128 rows x 128 B: 8 x 128 tiles.
  if (wanted("tile"))
    run("tile reuse", cfg, lookups / 128, false, [](std::uint64_t i) {
      const std::uint64_t t = i % 1024;
      return DmaDescriptor::strided((t / 128) * 128 * 16384 + (t % 128) * 128, 128, 128, 16384);
    });
  if (wanted("write"))
    run("stream write", cfg, lookups / (kStream / 128), true,
        [&](std::uint64_t i) { return DmaDescriptor::linear(i * kStream, kStream); });
  return 0;
}
