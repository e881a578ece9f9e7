// The fast L2 timing model equals the version before its speed work (l2_timing_v1.h, frozen)
// bit for bit: a long random mix of strided transfers (reads and writes, GEMM-like tiles of
// 128 B rows, unaligned boxes, long streams; several ports in both partitions; random A100-like
// and small organisations, so misses, sector misses, merged misses, evictions and write-backs
// all happen) goes through both, with downstream transfers retired at random times, and every
// access's id, settled flag and done time, every downstream transfer, every settled access and
// every counter must be identical (doubles compared with ==).
#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <vector>

#include "models/l2/l2_timing.h"
#include "tests/unit/l2/l2_timing_v1.h"

using namespace systole;
using namespace systole::models;

namespace {

template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> v) {
  return *(v.begin() + rng() % v.size());
}

void require_same(const std::vector<DmaDescriptor>& a, const std::vector<DmaDescriptor>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].addr == b[i].addr);
    REQUIRE(a[i].row_bytes == b[i].row_bytes);
    for (int k = 0; k < 3; ++k) {
      REQUIRE(a[i].dims[k].count == b[i].dims[k].count);
      REQUIRE(a[i].dims[k].stride == b[i].dims[k].stride);
    }
  }
}

void require_same(const std::vector<L2Settled>& a, const std::vector<L2Settled>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].id == b[i].id);
    REQUIRE(a[i].done_ps == b[i].done_ps);
  }
}

void require_same(const L2Counters& a, const L2Counters& b) {
  REQUIRE(a.transfers == b.transfers);
  REQUIRE(a.bytes_read == b.bytes_read);
  REQUIRE(a.bytes_written == b.bytes_written);
  REQUIRE(a.line_accesses == b.line_accesses);
  REQUIRE(a.line_hits == b.line_hits);
  REQUIRE(a.line_sector_misses == b.line_sector_misses);
  REQUIRE(a.line_misses == b.line_misses);
  REQUIRE(a.sector_accesses == b.sector_accesses);
  REQUIRE(a.sector_hits == b.sector_hits);
  REQUIRE(a.sector_misses == b.sector_misses);
  REQUIRE(a.sectors_fetched == b.sectors_fetched);
  REQUIRE(a.sectors_merged == b.sectors_merged);
  REQUIRE(a.evictions == b.evictions);
  REQUIRE(a.writebacks == b.writebacks);
  REQUIRE(a.writeback_sectors == b.writeback_sectors);
  REQUIRE(a.far_accesses == b.far_accesses);
  REQUIRE(a.fetch_transfers == b.fetch_transfers);
  REQUIRE(a.fetch_bytes == b.fetch_bytes);
  REQUIRE(a.writeback_transfers == b.writeback_transfers);
  REQUIRE(a.writeback_bytes == b.writeback_bytes);
  REQUIRE(a.slice_bytes == b.slice_bytes);
}

/// A random transfer within `span` bytes: a GEMM-like tile (128 B rows at a pitch), a stream
/// of whole lines, strided rows of any size and alignment, or a 3-deep box.
DmaDescriptor random_transfer(std::mt19937_64& rng, std::uint64_t span, std::uint64_t line) {
  DmaDescriptor d;
  switch (rng() % 5) {
    case 0: {  // a tile: rows of one or two lines at a line-aligned pitch
      const std::uint64_t rows = 1 + rng() % 128, pitch = line * (1 + rng() % 256);
      d = DmaDescriptor::strided(rng() % span / line * line, rows, line * (1 + rng() % 2), pitch);
      break;
    }
    case 1:  // a stream of whole lines
      d = DmaDescriptor::linear(rng() % span / line * line, line * (1 + rng() % 512));
      break;
    case 2:
      d.addr = rng() % span;
      d.row_bytes = 1 + rng() % 2048;
      break;
    case 3:
      d.addr = rng() % span;
      d.row_bytes = 1 + rng() % 512;
      d.dims[0] = {1 + rng() % 16, d.row_bytes + rng() % 2048};
      break;
    default:
      d.addr = rng() % span;
      d.row_bytes = 1 + rng() % 256;
      d.dims[0] = {1 + rng() % 4, pick<std::uint64_t>(rng, {256, 512, 4096}) + rng() % 64};
      d.dims[1] = {1 + rng() % 4, 16384 + rng() % 1000};
      d.dims[2] = {1 + rng() % 2, 1 << 20};
  }
  return d;
}

/// A random organisation: the A100 or H100 L2 shrunk to a few sets, or a small odd one.
L2Config random_config(std::mt19937_64& rng) {
  L2Config cfg = L2Config::schema().load(config::Node::map(), "l2");
  if (rng() % 2) {
    cfg.slices_per_partition = pick<std::int64_t>(rng, {40, 50});
    cfg.associativity = pick<std::int64_t>(rng, {16, 8});
    cfg.capacity = Bytes(static_cast<std::uint64_t>(cfg.slices() * cfg.associativity) *
                         pick<std::uint64_t>(rng, {1, 4, 16}) * cfg.line.value());
  } else {
    cfg.partitions = pick<std::int64_t>(rng, {1, 2});
    cfg.slices_per_partition = pick<std::int64_t>(rng, {1, 3, 5, 8});
    cfg.associativity = pick<std::int64_t>(rng, {1, 2, 3, 4, 16, 32});
    cfg.sector = Bytes(pick<std::uint64_t>(rng, {16, 32, 64}));
    cfg.line = Bytes(cfg.sector.value() * pick<std::uint64_t>(rng, {1, 2, 4, 8}));
    cfg.capacity = Bytes(static_cast<std::uint64_t>(cfg.slices() * cfg.associativity) *
                         pick<std::uint64_t>(rng, {1, 2, 8, 32}) * cfg.line.value());
    cfg.address_hash = rng() % 2 ? L2Hash::kXor : L2Hash::kNone;
  }
  cfg.port_bandwidth = pick<std::int64_t>(rng, {32, 64, 128});
  return cfg;
}

}  // namespace

TEST_CASE("L2 timing: the fast model equals the frozen pre-speed-work model bit for bit",
          "[unit][l2][property]") {
  std::mt19937_64 rng(1111);
  for (int c = 0; c < 60; ++c) {
    const L2Config cfg = random_config(rng);
    INFO("case " << c << ": " << cfg.partitions << " x " << cfg.slices_per_partition << " slices, "
                 << cfg.sets_per_slice() << " sets x " << cfg.associativity << " ways, line "
                 << cfg.line.value() << ", sector " << cfg.sector.value());
    L2Timing fast(cfg);
    test::v1::L2Timing old(cfg);
    std::vector<std::uint32_t> ports;
    for (int p = 0; p < 6; ++p) {
      const auto partition = static_cast<std::uint32_t>(p % cfg.partitions);
      ports.push_back(fast.add_port(partition));
      REQUIRE(old.add_port(partition) == ports.back());
    }
    // A working set of 1-4 capacities: hits, misses and evictions, clean and dirty.
    const std::uint64_t span = cfg.capacity.value() * (1 + rng() % 4);
    std::uint64_t fetches_out = 0, writebacks_out = 0;  // downstream, not yet retired
    double now = 0;
    for (int i = 0; i < 1500; ++i) {
      INFO("transfer " << i);
      now += static_cast<double>(rng() % 3000);  // accesses overlap at the servers
      const DmaDescriptor d = random_transfer(rng, span, cfg.line.value());
      const bool write = rng() % 3 == 0;
      const std::uint32_t port = ports[rng() % ports.size()];
      const L2Access a = fast.access(port, d, write, now);
      const L2Access b = old.access(port, d, write, now);
      REQUIRE(a.id == b.id);
      REQUIRE(a.settled == b.settled);
      REQUIRE(a.done_ps == b.done_ps);
      require_same(fast.fetches(), old.fetches());
      require_same(fast.writebacks(), old.writebacks());
      fetches_out += fast.fetches().size();
      writebacks_out += fast.writebacks().size();
      // Retire some of the oldest downstream transfers, sometimes none (merges pile up).
      for (std::uint64_t n = rng() % 4; n > 0 && fetches_out > 0; --n, --fetches_out) {
        now += static_cast<double>(rng() % 500);
        require_same(fast.fetch_arrived(now), old.fetch_arrived(now));
      }
      for (std::uint64_t n = rng() % 4; n > 0 && writebacks_out > 0; --n, --writebacks_out) {
        now += static_cast<double>(rng() % 500);
        require_same(fast.writeback_accepted(now), old.writeback_accepted(now));
      }
      REQUIRE(fast.waiting() == old.waiting());
      if (i % 100 == 0) require_same(fast.counters(), old.counters());
    }
    for (; fetches_out > 0; --fetches_out) {
      now += 100;
      require_same(fast.fetch_arrived(now), old.fetch_arrived(now));
    }
    for (; writebacks_out > 0; --writebacks_out) {
      now += 100;
      require_same(fast.writeback_accepted(now), old.writeback_accepted(now));
    }
    REQUIRE(fast.waiting() == 0);
    REQUIRE(old.waiting() == 0);
    require_same(fast.counters(), old.counters());
  }
}
