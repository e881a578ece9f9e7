// Banked SRAM timing (VMEM/CMEM), double-buffered layouts, and the DMA's memory-side transfer.
#include <catch2/catch.hpp>

#include <random>

#include "models/dma/dma_module.h"
#include "models/sram/sram_layout.h"
#include "models/sram/sram_timing.h"
#include "sim/config/node.h"
#include "sim/core/error.h"

using namespace systole;
using namespace systole::models;

namespace {

// 8 banks x 1 port x 64 B; 8 x 64 B per ns = 512 GB/s: one access per bank per ns.
SramConfig small(std::int64_t ports = 1) {
  SramConfig c = SramConfig::vmem_schema().load(config::Node(), "vmem");
  c.banks = 8;
  c.ports = ports;
  c.width = Bytes(64);
  c.bandwidth = BytesPerSecond(512e9 * static_cast<double>(ports));
  return c;
}

}  // namespace

TEST_CASE("SRAM: a dense tile spreads over every bank at full bandwidth", "[unit][sram]") {
  SramTiming s(small(), small().bandwidth);
  CHECK(s.per_bank(DmaDescriptor::linear(0, 4096)) == std::vector<std::uint64_t>(8, 8));
  // 4096 B = 64 accesses over 8 banks: 8 ns.
  const SramGrant g = s.access(0, DmaDescriptor::linear(0, 4096), true);
  CHECK(g.end_ps == Approx(8000));
  CHECK(g.ideal_ps == Approx(8000));
  CHECK(s.conflict_ps() == Approx(0));
  CHECK(s.bytes_written() == 4096);
}

TEST_CASE("SRAM: a stride of banks x width hits one bank (a conflict)", "[unit][sram]") {
  SramTiming s(small(), small().bandwidth);
  // 16 rows of 64 B, 512 B apart: every row starts in bank 0.
  const auto d = DmaDescriptor::strided(0, 16, 64, 512);
  const auto n = s.per_bank(d);
  CHECK(n[0] == 16);
  CHECK(n[1] == 0);
  const SramGrant g = s.access(0, d, false);
  CHECK(g.end_ps == Approx(16000));   // serialised on bank 0
  CHECK(g.ideal_ps == Approx(2000));  // 16 accesses over 8 banks
  CHECK(s.conflict_ps() == Approx(14000));
  // One bank further along the stripe the conflict moves to bank 1, which is free.
  const SramGrant h = s.access(0, DmaDescriptor::strided(64, 16, 64, 512), false);
  CHECK(h.end_ps == Approx(16000));
}

TEST_CASE("SRAM: ports serve a bank's accesses in parallel, reservations queue", "[unit][sram]") {
  SramTiming s(small(2), small(2).bandwidth);  // 2 ports, same per-port speed
  const auto d = DmaDescriptor::strided(0, 16, 64, 512);
  CHECK(s.access(0, d, false).end_ps == Approx(8000));       // 16 accesses over 2 ports of bank 0
  CHECK(s.access(0, d, false).end_ps == Approx(16000));      // behind the first
  CHECK(s.access(20000, d, false).end_ps == Approx(28000));  // free again
}

TEST_CASE("SRAM layout: double-buffered slots, and a clear error when they do not fit",
          "[unit][sram]") {
  SramLayout v("VMEM", 16 << 10, 512);
  const auto a = v.add("A", 1000, 2), b = v.add("B", 2048, 2);
  CHECK(v.slot(a, 0) == 0);
  CHECK(v.slot(a, 1) == 1024);  // aligned to the stripe
  CHECK(v.slot(a, 2) == 0);     // copies cycle
  CHECK(v.slot(b, 1) == 2 * 1024 + 2048);
  CHECK(v.used() == 2 * 1024 + 2 * 2048);
  CHECK_NOTHROW(v.check("layer 'x'"));
  v.add("C", 8192, 2);
  CHECK_THROWS_WITH(v.check("layer 'x' (8x8x8)"),
                    "layer 'x' (8x8x8) does not fit VMEM: A 2 x 1000 B, B 2 x 2 KiB, C 2 x 8 "
                    "KiB need 22 KiB, it has 16 KiB");
}

TEST_CASE("DMA: a tile's transfer keeps its rows, strided pieces round up to the granule",
          "[unit][dma]") {
  DmaConfig cfg = DmaConfig::schema().load(config::Node(), "dma");
  Op op;
  op.kind = OpKind::kLoad;
  op.bytes = 8 * 256;
  op.mem = DmaDescriptor::strided(4096, 8, 256, 16384);  // 8 rows of 256 B
  const MemoryTransfer t = DmaModule::memory_transfer(op, cfg, 7);
  CHECK(t.desc.row_bytes == 512);  // 512 B granule (FACTS.md §A.3)
  CHECK(t.bytes() == 8 * 512);
  CHECK(t.requester == 7);
  CHECK(t.request_bytes == 512);
  CHECK(t.max_outstanding == 2048);  // the default depth (dma_config.cpp: Little's law)
  CHECK_FALSE(t.write);
  op.mem = DmaDescriptor::strided(0, 4, 300, 300);  // back to back: one contiguous piece
  CHECK(DmaModule::memory_transfer(op, cfg, 0).bytes() == 1536);
  op.mem = {};
  op.bytes = 100;
  op.kind = OpKind::kStore;
  const MemoryTransfer u = DmaModule::memory_transfer(op, cfg, 0);
  CHECK(u.bytes() == 512);
  CHECK(u.write);
  CHECK_THROWS_WITH(DmaConfig::schema().load(config::parse_yaml("{request: 96B}", "d.yaml"), "dma"),
                    "d.yaml:1:11: dma.request: 96 B is not a power of two");
}

TEST_CASE("SRAM: bank counts of random strided tiles equal a word-by-word count", "[unit][sram]") {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::uint64_t> pick(1, 700), cnt(1, 5), banks_d(1, 70);
  for (int i = 0; i < 500; ++i) {
    SramConfig c = small();
    c.banks = static_cast<std::int64_t>(banks_d(rng));
    c.width = Bytes(static_cast<double>(1 + pick(rng) % 96));
    const SramTiming s(c, c.bandwidth);
    DmaDescriptor d;
    d.addr = pick(rng) * pick(rng);
    d.row_bytes = pick(rng) * (1 + pick(rng) % 4);
    for (auto& dim : d.dims) dim = {cnt(rng), pick(rng) * (1 + pick(rng) % 8)};
    std::vector<std::uint64_t> ref(static_cast<size_t>(c.banks), 0);
    const std::uint64_t w = c.width.value();
    for (std::uint64_t k = 0; k < d.dims[2].count; ++k)
      for (std::uint64_t j = 0; j < d.dims[1].count; ++j)
        for (std::uint64_t r = 0; r < d.dims[0].count; ++r) {
          const std::uint64_t a =
              d.addr + r * d.dims[0].stride + j * d.dims[1].stride + k * d.dims[2].stride;
          for (std::uint64_t word = a / w; word <= (a + d.row_bytes - 1) / w; ++word)
            ++ref[static_cast<size_t>(word % ref.size())];
        }
    INFO("case " << i);
    CHECK(s.per_bank(d) == ref);
  }
}
