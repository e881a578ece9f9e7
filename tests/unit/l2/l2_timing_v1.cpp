// The frozen pre-speed-work L2 tags and timing (see l2_timing_v1.h).
#include "tests/unit/l2/l2_timing_v1.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace systole::test::v1 {

L2Tags::L2Tags(std::uint32_t sets, std::uint32_t ways)
    : sets_(sets),
      ways_(ways),
      // tags, then four bytes a way, then a spare word a way: each part on whole lines when
      // the tags fill whole lines (16 ways: 64 + 64 + 64 bytes)
      bytes_words_(ways),
      block_words_((ways + bytes_words_ + ways + 15) / 16 * 16),
      store_(std::uint64_t{sets} * block_words_ + 16, 0) {
  const auto addr = reinterpret_cast<std::uintptr_t>(store_.data());
  base_ = store_.data() + ((64 - addr % 64) % 64) / 4;
  for (std::uint32_t s = 0; s < sets; ++s) {
    std::fill(block(s), block(s) + ways, kEmpty);
    for (std::uint32_t w = 0; w < ways; ++w) bytes(block(s))[w] = static_cast<std::uint8_t>(w);
  }
}

std::uint64_t L2Tags::occupied() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (std::uint32_t w = 0; w < ways_; ++w) n += block(s)[w] != kEmpty;
  return n;
}

std::uint64_t L2Tags::dirty_sectors() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (std::uint32_t w = 0; w < ways_; ++w)
      n += static_cast<std::uint64_t>(__builtin_popcount(bytes(block(s))[2 * ways_ + w]));
  return n;
}

namespace {

/// Set bits of a byte (a table: no popcnt instruction in the baseline x86-64 target).
int popcount(std::uint32_t v) {
  static const auto table = [] {
    std::array<std::uint8_t, 256> t{};
    for (std::uint32_t i = 1; i < 256; ++i) t[i] = static_cast<std::uint8_t>(t[i / 2] + (i & 1));
    return t;
  }();
  return table[v & 0xFF];
}

/// Sectors s0..s1 as a mask.
std::uint8_t sector_range(std::uint32_t s0, std::uint32_t s1) {
  return static_cast<std::uint8_t>(((2u << s1) - 1) & ~((1u << s0) - 1));
}

/// Calls f(first, count) for each run of consecutive set bits of `mask`.
template <class F>
void for_each_run(std::uint8_t mask, F&& f) {
  std::uint32_t m = mask;
  while (m) {
    const auto s0 = static_cast<std::uint32_t>(__builtin_ctz(m));
    std::uint32_t n = 0;
    while (m & (1u << (s0 + n))) ++n;
    f(s0, n);
    m &= ~(((1u << n) - 1) << s0);
  }
}

std::uint32_t log2u(std::uint64_t v) { return static_cast<std::uint32_t>(__builtin_ctzll(v)); }

}  // namespace

L2Timing::L2Timing(const L2Config& cfg)
    : cfg_(cfg),
      map_(static_cast<std::uint32_t>(cfg.slices()),
           static_cast<std::uint32_t>(cfg.sets_per_slice()),
           static_cast<std::uint32_t>(cfg.associativity), cfg.address_hash == L2Hash::kXor),
      cursor_(map_),
      tags_(static_cast<std::uint32_t>(cfg.slices() * cfg.sets_per_slice()),
            static_cast<std::uint32_t>(cfg.associativity)),
      sectors_(static_cast<std::uint32_t>(cfg.sectors_per_line())),
      sets_(static_cast<std::uint32_t>(cfg.sets_per_slice())),
      line_bits_(log2u(cfg.line.value())),
      sector_bits_(log2u(cfg.sector.value())),
      all_sectors_(sector_range(0, sectors_ - 1)),
      slice_ps_per_byte_(cfg.period_ps() / static_cast<double>(cfg.slice_bandwidth)),
      xbar_ps_per_byte_(cfg.period_ps() / static_cast<double>(cfg.xbar_bandwidth)),
      port_ps_per_byte_(cfg.period_ps() / static_cast<double>(cfg.port_bandwidth)),
      near_ps_(static_cast<double>(cfg.hit_latency) * cfg.period_ps()),
      far_ps_(static_cast<double>(cfg.hit_latency + cfg.far_penalty) * cfg.period_ps()),
      slices_(static_cast<std::size_t>(cfg.slices())),
      xbars_(static_cast<std::size_t>(cfg.partitions)) {
  counters_.slice_bytes.assign(slices_.size(), 0);
  for (std::size_t s = 0; s < slices_.size(); ++s)
    partition_.push_back(
        static_cast<std::uint32_t>(s / static_cast<std::size_t>(cfg.slices_per_partition)));
}

std::uint32_t L2Timing::add_port(std::uint32_t partition) {
  SYSTOLE_ASSERT(partition < static_cast<std::uint32_t>(cfg_.partitions),
                 "L2: a requester's partition must be one of the L2's");
  ports_.emplace_back();
  port_partition_.push_back(partition);
  return static_cast<std::uint32_t>(ports_.size() - 1);
}

L2Access L2Timing::access(std::uint32_t port, const DmaDescriptor& d, bool write, double now_ps) {
  cur_ = Current{};
  cur_.port = port;
  cur_.partition = port_partition_.at(port);
  cur_.write = write;
  cur_.now = cur_.done = now_ps;
  fetch_runs_.clear();
  wb_runs_.clear();
  ++counters_.transfers;
  (write ? counters_.bytes_written : counters_.bytes_read) += d.bytes();
  for (std::uint64_t i2 = 0; i2 < d.dims[2].count; ++i2)
    for (std::uint64_t i1 = 0; i1 < d.dims[1].count; ++i1)
      for (std::uint64_t i0 = 0; i0 < d.dims[0].count; ++i0)
        walk_row(d.addr + i0 * d.dims[0].stride + i1 * d.dims[1].stride + i2 * d.dims[2].stride,
                 d.row_bytes);
  flush();
  return finish_access();
}

void L2Timing::walk_row(std::uint64_t addr, std::uint64_t bytes) {
  if (bytes == 0) return;
  const std::uint64_t line_mask = (std::uint64_t{1} << line_bits_) - 1;
  const std::uint64_t sector_mask = (std::uint64_t{1} << sector_bits_) - 1;
  const std::uint64_t end = addr + bytes - 1;
  const std::uint64_t first = addr >> line_bits_, last = end >> line_bits_;
  SYSTOLE_ASSERT(last < map_.line_limit(), "L2: address beyond the tags' reach");
  cursor_.seek(first);
  for (std::uint64_t ln = first;; ++ln) {
    const std::uint64_t b0 = ln == first ? addr & line_mask : 0;
    const std::uint64_t b1 = ln == last ? end & line_mask : line_mask;
    std::uint8_t mask = all_sectors_, full = all_sectors_;
    if (b0 != 0 || b1 != line_mask) {
      const auto s0 = static_cast<std::uint32_t>(b0 >> sector_bits_);
      const auto s1 = static_cast<std::uint32_t>(b1 >> sector_bits_);
      mask = full = sector_range(s0, s1);
      if (b0 & sector_mask) full &= static_cast<std::uint8_t>(~(1u << s0));
      if ((b1 + 1) & sector_mask) full &= static_cast<std::uint8_t>(~(1u << s1));
    }
    push({ln, cursor_.slice(), cursor_.set(), cursor_.tag(), mask, full});
    if (ln == last) break;
    cursor_.next();
  }
}

// The lines were located (and their set blocks prefetched) a batch ahead: look them up.
void L2Timing::flush() {
  for (std::uint32_t i = 0; i < batched_; ++i) line(batch_[i]);
  batched_ = 0;
}

void L2Timing::line(const LineRef& l) {
  const std::uint32_t slice = l.slice;
  const std::uint8_t mask = l.mask, full = l.full;
  const std::uint32_t set = slice * sets_ + l.set;
  const L2LineOutcome o = tags_.access(set, l.tag, mask, cur_.write, full);
  const std::uint32_t part = partition_of_slice(slice);
  const bool far = part != cur_.partition;
  const auto newly = static_cast<std::uint8_t>(mask & ~o.was_valid);
  L2Counters& c = counters_;
  ++c.line_accesses;
  if (!o.tag_hit)
    ++c.line_misses;
  else if (newly)
    ++c.line_sector_misses;
  else
    ++c.line_hits;
  c.sector_accesses += static_cast<std::uint64_t>(popcount(mask));
  c.sector_hits += static_cast<std::uint64_t>(popcount(mask & o.was_valid));
  c.sector_misses += static_cast<std::uint64_t>(popcount(newly));
  c.far_accesses += far;
  if (o.evicted) {
    ++c.evictions;
    if (o.victim_dirty) write_back(map_.line_of(slice, l.set, o.victim), o.victim_dirty);
  }
  // Sectors whose data the access needs (a whole-sector write needs none) that are valid but
  // still in flight for an earlier miss: the access waits for that fetch (an MSHR merge).
  const auto need = static_cast<std::uint8_t>(cur_.write ? mask & ~full : mask);
  const auto pend = static_cast<std::uint8_t>(tags_.pending(set, o.way) & need & ~o.missing);
  if (pend) merge_pending(set, o.way, pend, far);
  if (o.missing) fetch(l.line, set, o.way, o.missing, far);
  // Its sectors cross the slice, the home partition's crossbar port and the requester's port.
  const double bytes = static_cast<double>(popcount(mask) << sector_bits_);
  c.slice_bytes[slice] += static_cast<std::uint64_t>(bytes);
  double end = slices_[slice].serve(cur_.now, bytes * slice_ps_per_byte_).end;
  end = xbars_[part].serve(end, bytes * xbar_ps_per_byte_).end;
  end = ports_[cur_.port].serve(end, bytes * port_ps_per_byte_).end;
  cur_.done = std::max(cur_.done, end + (far ? far_ps_ : near_ps_));
}

void L2Timing::merge_pending(std::uint32_t set, std::uint32_t way, std::uint8_t pend, bool far) {
  // The line's latest fetch: its sectors in flight arrive with it at the latest (fetches
  // arrive in order), so waiting for it is exact unless the sectors needed came with an
  // earlier fetch of the same line still in flight (then it waits a little long).
  const std::uint64_t g = tags_.word(set, way);
  if (fetch_order_.finished(g)) {
    tags_.pending(set, way) = 0;  // everything in flight has arrived
    return;
  }
  counters_.sectors_merged += static_cast<std::uint64_t>(popcount(pend));
  if (g == cur_.group)
    (far ? cur_.own_far : cur_.own_near) = true;
  else
    (far ? cur_.far_dep : cur_.near_dep) = std::max(far ? cur_.far_dep : cur_.near_dep, g);
}

void L2Timing::fetch(std::uint64_t ln, std::uint32_t set, std::uint32_t way, std::uint8_t missing,
                     bool far) {
  if (!cur_.group) cur_.group = fetch_order_.open();
  SYSTOLE_ASSERT(cur_.group < (std::uint64_t{1} << 32), "L2: fetch groups beyond 32 bits");
  tags_.pending(set, way) |= missing;
  tags_.word(set, way) = static_cast<std::uint32_t>(cur_.group);
  (far ? cur_.own_far : cur_.own_near) = true;
  counters_.sectors_fetched += static_cast<std::uint64_t>(popcount(missing));
  for_each_run(missing, [&](std::uint32_t s0, std::uint32_t n) {
    add_run(fetch_runs_, (ln << line_bits_) + (std::uint64_t{s0} << sector_bits_),
            std::uint64_t{n} << sector_bits_);
  });
}

void L2Timing::write_back(std::uint64_t victim_line, std::uint8_t dirty) {
  ++counters_.writebacks;
  counters_.writeback_sectors += static_cast<std::uint64_t>(popcount(dirty));
  for_each_run(dirty, [&](std::uint32_t s0, std::uint32_t n) {
    add_run(wb_runs_, (victim_line << line_bits_) + (std::uint64_t{s0} << sector_bits_),
            std::uint64_t{n} << sector_bits_);
  });
}

void L2Timing::add_run(std::vector<Run>& runs, std::uint64_t addr, std::uint64_t bytes) {
  if (!runs.empty() && runs.back().addr + runs.back().bytes == addr)
    runs.back().bytes += bytes;
  else
    runs.push_back({addr, bytes});
}

// Runs in walk order become descriptors: equal runs at a constant stride join one strided
// descriptor (a tile's rows: one downstream transfer), anything else starts a new one.
void L2Timing::to_descriptors(const std::vector<Run>& runs, std::vector<DmaDescriptor>& out) {
  out.clear();
  for (const Run& r : runs) {
    if (!out.empty()) {
      DmaDescriptor& d = out.back();
      DmaDim& dim = d.dims[0];
      if (d.row_bytes == r.bytes && r.addr > d.addr) {
        if (dim.count == 1 && r.addr - d.addr >= r.bytes) {
          dim = {2, r.addr - d.addr};
          continue;
        }
        if (dim.count > 1 && r.addr == d.addr + dim.count * dim.stride) {
          ++dim.count;
          continue;
        }
      }
    }
    out.push_back(DmaDescriptor::linear(r.addr, r.bytes));
  }
}

L2Access L2Timing::finish_access() {
  to_descriptors(fetch_runs_, fetch_out_);
  to_descriptors(wb_runs_, wb_out_);
  for (const DmaDescriptor& d : fetch_out_) {
    fetch_order_.add(cur_.group);
    ++counters_.fetch_transfers;
    counters_.fetch_bytes += d.bytes();
  }
  std::uint64_t wb_group = 0;
  if (!wb_out_.empty()) wb_group = wb_order_.open();
  for (const DmaDescriptor& d : wb_out_) {
    wb_order_.add(wb_group);
    ++counters_.writeback_transfers;
    counters_.writeback_bytes += d.bytes();
  }
  const std::uint64_t id = next_id_++;
  std::uint32_t deps = 0;
  const auto wait = [&](L2Order& order, std::uint64_t g, double latency) {
    order.wait(g, id, latency);
    ++deps;
  };
  // Fetch groups finish in order, so waiting for the latest one merged into suffices, once
  // with the near and once with the far return latency.
  if (cur_.group) wait(fetch_order_, cur_.group, cur_.own_far ? far_ps_ : near_ps_);
  if (cur_.near_dep && cur_.near_dep != cur_.far_dep) wait(fetch_order_, cur_.near_dep, near_ps_);
  if (cur_.far_dep) wait(fetch_order_, cur_.far_dep, far_ps_);
  if (wb_group) wait(wb_order_, wb_group, 0.0);
  if (deps == 0) return {id, true, cur_.done};
  waiting_[id] = {cur_.done, deps};
  return {id, false, 0.0};
}

const std::vector<L2Settled>& L2Timing::fetch_arrived(double now_ps) {
  settled_.clear();
  fetch_order_.finish_one([&](std::uint64_t id, double latency) { settle(id, now_ps + latency); });
  return settled_;
}

const std::vector<L2Settled>& L2Timing::writeback_accepted(double now_ps) {
  settled_.clear();
  wb_order_.finish_one([&](std::uint64_t id, double latency) { settle(id, now_ps + latency); });
  return settled_;
}

void L2Timing::settle(std::uint64_t id, double at_ps) {
  const auto it = waiting_.find(id);
  SYSTOLE_ASSERT(it != waiting_.end(), "L2: settling an access that does not wait");
  it->second.done = std::max(it->second.done, at_ps);
  if (--it->second.deps > 0) return;
  settled_.push_back({id, it->second.done});
  waiting_.erase(it);
}

}  // namespace systole::test::v1
