// Fidelity proof of the L2's fast tag store and walk (models/l2): on many random streams the
// flat-array tags give the same hit / miss / eviction / write-back sequence as a list-per-set
// reference cache (l2_reference.h), the incremental address cursor agrees with the division
// formulas, and the whole transfer walk (strided rows, partial sectors, merged downstream
// transfers) fetches and writes back exactly the sectors the byte-by-byte reference does, in
// the same order.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "models/l2/l2_address_map.h"
#include "models/l2/l2_tags.h"
#include "models/l2/l2_timing.h"
#include "tests/unit/l2/l2_reference.h"

using namespace systole;
using namespace systole::models;
using test::RefMap;
using test::RefOutcome;
using test::RefTags;

namespace {

std::vector<bool> bits(std::uint8_t m, std::uint32_t n) {
  std::vector<bool> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = (m >> i) & 1;
  return v;
}

template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> v) {
  return *(v.begin() + rng() % v.size());
}

}  // namespace

TEST_CASE("L2 tags: flat arrays give the reference's hits, misses, evictions and write-backs",
          "[unit][l2][property]") {
  std::mt19937_64 rng(11);
  for (int c = 0; c < 300; ++c) {
    const std::uint32_t sets = pick<std::uint32_t>(rng, {1, 2, 4, 8, 16});
    const std::uint32_t ways = pick<std::uint32_t>(rng, {1, 2, 3, 4, 8, 16, 32});
    const std::uint32_t sectors = pick<std::uint32_t>(rng, {1, 2, 4, 8});
    // A pool of lines from half to three times the capacity: hits, misses and evictions.
    const std::uint64_t pool = std::max<std::uint64_t>(1, sets * ways * (1 + rng() % 6) / 2);
    L2Tags fast(sets, ways);
    RefTags ref(sets, ways, sectors);
    INFO("case " << c << ": " << sets << " sets x " << ways << " ways, " << sectors
                 << " sectors, pool " << pool);
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t line = rng() % pool * 7 + 3;  // any line index
      const auto set = static_cast<std::uint32_t>(line % sets);
      const auto all = static_cast<std::uint8_t>((1u << sectors) - 1);
      auto mask = static_cast<std::uint8_t>(rng() & all);
      if (!mask) mask = all;
      const bool write = rng() % 3 == 0;
      const auto full = static_cast<std::uint8_t>(mask & rng());
      const L2LineOutcome f = fast.access(set, static_cast<std::uint32_t>(line), mask, write, full);
      const RefOutcome r = ref.access(set, line, bits(mask, sectors), write, bits(full, sectors));
      INFO("access " << i << " line " << line);
      REQUIRE(f.tag_hit == r.tag_hit);
      REQUIRE(bits(f.was_valid, sectors) == r.was_valid);
      REQUIRE(bits(f.missing, sectors) == r.missing);
      REQUIRE(f.evicted == r.evicted);
      if (f.evicted) REQUIRE(f.victim == r.victim);
      REQUIRE(bits(f.victim_dirty, sectors) == r.victim_dirty);
      REQUIRE(f.slot / ways == set);
    }
  }
}

TEST_CASE("L2 address map: the cursor equals the division formulas, blocks fill sets evenly",
          "[unit][l2][property]") {
  std::mt19937_64 rng(5);
  for (const std::uint32_t slices : {1u, 3u, 5u, 8u, 40u, 80u, 100u})
    for (const std::uint32_t sets : {1u, 2u, 16u, 256u})
      for (const bool hash : {false, true}) {
        const std::uint32_t ways = 1 + static_cast<std::uint32_t>(rng() % 16);
        INFO(slices << " slices, " << sets << " sets, " << ways << " ways, hash " << hash);
        const L2AddressMap map(slices, sets, ways, hash);
        const RefMap ref{slices, sets, ways, hash};
        L2AddressMap::Cursor cur(map);
        for (int k = 0; k < 20; ++k) {
          const std::uint64_t start = (rng() >> (8 + rng() % 50)) % (map.line_limit() - 1000);
          cur.seek(start);
          for (std::uint64_t l = start; l < start + 3 * slices + 7; ++l, cur.next()) {
            REQUIRE(cur.slice() == map.locate(l).slice);
            REQUIRE(cur.set() == map.locate(l).set);
            REQUIRE(cur.slice() == ref.slice(l));
            REQUIRE(cur.set() == ref.set(l));
            REQUIRE(map.line_of(cur.slice(), cur.set(), cur.tag()) == l);
          }
        }
        // An aligned block of slices x sets x ways lines (one capacity) puts exactly `ways`
        // lines in every set, and the line one capacity on shares its line's set.
        std::vector<std::uint32_t> seen(std::size_t{slices} * sets, 0);
        const std::uint64_t block = std::uint64_t{slices} * sets * ways;
        const std::uint64_t base = (rng() % 1000) * block;
        for (std::uint64_t l = base; l < base + block; ++l) {
          const L2Location at = map.locate(l), next = map.locate(l + block);
          ++seen[at.slice * sets + at.set];
          REQUIRE(next.slice == at.slice);
          REQUIRE(next.set == at.set);
        }
        for (const std::uint32_t n : seen) REQUIRE(n == ways);
      }
}

namespace {

/// The reference walk of one transfer: every line of every row, sectors touched and written
/// whole worked out byte by byte; fetched and written-back sector addresses in walk order.
struct RefWalk {
  RefMap map;
  RefTags tags;
  std::uint64_t line, sector;
  std::uint32_t partitions_slices;  // slices per partition
  std::vector<std::uint64_t> fetched, written_back;
  std::uint64_t line_hits = 0, line_sector_misses = 0, line_misses = 0, sector_hits = 0,
                sector_misses = 0, evictions = 0, far = 0;

  void transfer(const DmaDescriptor& d, bool write, std::uint32_t partition) {
    fetched.clear();
    written_back.clear();
    for (std::uint64_t i2 = 0; i2 < d.dims[2].count; ++i2)
      for (std::uint64_t i1 = 0; i1 < d.dims[1].count; ++i1)
        for (std::uint64_t i0 = 0; i0 < d.dims[0].count; ++i0)
          row(d.addr + i0 * d.dims[0].stride + i1 * d.dims[1].stride + i2 * d.dims[2].stride,
              d.row_bytes, write, partition);
  }
  void row(std::uint64_t a, std::uint64_t n, bool write, std::uint32_t partition) {
    const auto sectors = static_cast<std::uint32_t>(line / sector);
    for (std::uint64_t l = a / line; n > 0 && l <= (a + n - 1) / line; ++l) {
      std::vector<std::uint64_t> count(sectors, 0);
      for (std::uint64_t b = std::max(a, l * line); b < std::min(a + n, (l + 1) * line); ++b)
        ++count[(b - l * line) / sector];
      std::vector<bool> touched(sectors), whole(sectors);
      for (std::uint32_t s = 0; s < sectors; ++s) {
        touched[s] = count[s] > 0;
        whole[s] = count[s] == sector;
      }
      const std::uint32_t slice = map.slice(l);
      far += slice / partitions_slices != partition;
      const RefOutcome o = tags.access(slice * map.sets + map.set(l), l, touched, write, whole);
      bool newly = false;
      for (std::uint32_t s = 0; s < sectors; ++s) {
        if (o.victim_dirty[s]) written_back.push_back(o.victim * line + s * sector);
        if (!touched[s]) continue;
        (o.was_valid[s] ? sector_hits : sector_misses) += 1;
        newly |= !o.was_valid[s];
        if (o.missing[s]) fetched.push_back(l * line + s * sector);
      }
      // A victim's sectors are written back before the line's own fetches in the model's
      // separate streams; within each stream the order is the walk's.
      evictions += o.evicted;
      (!o.tag_hit ? line_misses : newly ? line_sector_misses : line_hits) += 1;
    }
  }
};

/// The sector addresses a list of descriptors covers, in order.
std::vector<std::uint64_t> sectors_of(const std::vector<DmaDescriptor>& ds, std::uint64_t sector) {
  std::vector<std::uint64_t> v;
  for (const DmaDescriptor& d : ds) {
    REQUIRE(d.row_bytes % sector == 0);
    for (std::uint64_t i0 = 0; i0 < d.dims[0].count; ++i0)
      for (std::uint64_t b = 0; b < d.row_bytes; b += sector)
        v.push_back(d.addr + i0 * d.dims[0].stride + b);
  }
  return v;
}

/// A random transfer: linear, strided rows or a 3-deep box, any alignment and size.
DmaDescriptor random_transfer(std::mt19937_64& rng, std::uint64_t span) {
  DmaDescriptor d;
  d.addr = rng() % span;
  switch (rng() % 3) {
    case 0:
      d.row_bytes = 1 + rng() % 2048;
      break;
    case 1:
      d.row_bytes = 1 + rng() % 512;
      d.dims[0] = {1 + rng() % 16, d.row_bytes + rng() % 2048};
      break;
    default:
      d.row_bytes = 1 + rng() % 256;
      d.dims[0] = {1 + rng() % 4, pick<std::uint64_t>(rng, {256, 512, 4096}) + rng() % 64};
      d.dims[1] = {1 + rng() % 4, 16384 + rng() % 1000};
      d.dims[2] = {1 + rng() % 2, 1 << 20};
  }
  return d;
}

}  // namespace

TEST_CASE("L2 walk: random transfers fetch and write back the reference's sectors, in order",
          "[unit][l2][property]") {
  std::mt19937_64 rng(2026);
  for (int c = 0; c < 150; ++c) {
    L2Config cfg = L2Config::schema().load(config::Node::map(), "l2");
    cfg.partitions = pick<std::int64_t>(rng, {1, 2});
    cfg.slices_per_partition = pick<std::int64_t>(rng, {1, 3, 5, 8});
    cfg.associativity = pick<std::int64_t>(rng, {1, 2, 4, 16});
    cfg.sector = Bytes(pick<std::uint64_t>(rng, {16, 32, 64}));
    cfg.line = Bytes(cfg.sector.value() * pick<std::uint64_t>(rng, {1, 2, 4, 8}));
    const std::uint64_t sets = pick<std::uint64_t>(rng, {1, 2, 8, 32});
    cfg.capacity = Bytes(static_cast<std::uint64_t>(cfg.slices() * cfg.associativity) * sets *
                         cfg.line.value());
    cfg.address_hash = rng() % 2 ? L2Hash::kXor : L2Hash::kNone;
    INFO("case " << c << ": " << cfg.partitions << " x " << cfg.slices_per_partition << " slices, "
                 << sets << " sets x " << cfg.associativity << " ways, line " << cfg.line.value()
                 << ", sector " << cfg.sector.value());
    L2Timing fast(cfg);
    const std::uint32_t ports[2] = {fast.add_port(0), fast.add_port(cfg.partitions - 1)};
    RefWalk ref{
        RefMap{static_cast<std::uint32_t>(cfg.slices()), static_cast<std::uint32_t>(sets),
               static_cast<std::uint32_t>(cfg.associativity), cfg.address_hash == L2Hash::kXor},
        RefTags(static_cast<std::uint32_t>(cfg.slices() * sets),
                static_cast<std::uint32_t>(cfg.associativity),
                static_cast<std::uint32_t>(cfg.sectors_per_line())),
        cfg.line.value(),
        cfg.sector.value(),
        static_cast<std::uint32_t>(cfg.slices_per_partition),
        {},
        {}};
    const std::uint64_t span = 4 * cfg.capacity.value();  // a working set of 4 capacities
    double now = 0;
    for (int i = 0; i < 300; ++i) {
      const DmaDescriptor d = random_transfer(rng, span);
      const bool write = rng() % 3 == 0;
      const int p = static_cast<int>(rng() % 2);
      fast.access(ports[p], d, write, now += 1000);
      ref.transfer(d, write, static_cast<std::uint32_t>(p ? cfg.partitions - 1 : 0));
      INFO("transfer " << i);
      REQUIRE(sectors_of(fast.fetches(), cfg.sector.value()) == ref.fetched);
      REQUIRE(sectors_of(fast.writebacks(), cfg.sector.value()) == ref.written_back);
      const L2Counters& k = fast.counters();
      REQUIRE(k.line_hits == ref.line_hits);
      REQUIRE(k.line_sector_misses == ref.line_sector_misses);
      REQUIRE(k.line_misses == ref.line_misses);
      REQUIRE(k.sector_hits == ref.sector_hits);
      REQUIRE(k.sector_misses == ref.sector_misses);
      REQUIRE(k.evictions == ref.evictions);
      REQUIRE(k.far_accesses == ref.far);
    }
  }
}
