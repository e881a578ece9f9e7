#include "models/l2/l2_timing.h"

#include <algorithm>
#include <array>

namespace systole::models {

namespace {

/// Set bits of a byte: a table built at compile time (no popcnt instruction in the baseline
/// x86-64 target, no guard of a function-local static).
constexpr std::array<std::uint8_t, 256> kPopcount = [] {
  std::array<std::uint8_t, 256> t{};
  for (std::uint32_t i = 1; i < 256; ++i) t[i] = static_cast<std::uint8_t>(t[i / 2] + (i & 1));
  return t;
}();
int popcount(std::uint32_t v) { return kPopcount[v & 0xFF]; }

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
    const auto n = static_cast<std::uint32_t>(__builtin_ctz(~(m >> s0)));
    f(s0, n);
    m &= ~(((1u << n) - 1) << s0);
  }
}

std::uint32_t log2u(std::uint64_t v) { return static_cast<std::uint32_t>(__builtin_ctzll(v)); }

/// A first-come-first-served server free at `free`: a job of `service` arriving `at` ends at
/// the returned time (the arithmetic of FcfsServer::serve).
double serve(double& free, double at, double service) {
  free = std::max(at, free) + service;
  return free;
}

}  // namespace

L2Timing::L2Timing(const L2Config& cfg)
    : cfg_(cfg),
      map_(static_cast<std::uint32_t>(cfg.slices()),
           static_cast<std::uint32_t>(cfg.sets_per_slice()),
           static_cast<std::uint32_t>(cfg.associativity), cfg.address_hash == L2Hash::kXor),
      tags_(static_cast<std::uint32_t>(cfg.slices() * cfg.sets_per_slice()),
            static_cast<std::uint32_t>(cfg.associativity)),
      sectors_(static_cast<std::uint32_t>(cfg.sectors_per_line())),
      sets_(static_cast<std::uint32_t>(cfg.sets_per_slice())),
      set_bits_(log2u(sets_)),
      line_bits_(log2u(cfg.line.value())),
      sector_bits_(log2u(cfg.sector.value())),
      all_sectors_(sector_range(0, sectors_ - 1)),
      whole_line_(static_cast<std::uint16_t>(all_sectors_ | all_sectors_ << 8)),
      line_limit_(map_.line_limit()),
      slice_free_(static_cast<std::size_t>(cfg.slices()), 0.0),
      xbar_free_(static_cast<std::size_t>(cfg.partitions), 0.0) {
  SYSTOLE_ASSERT(sectors_ <= kMaxSectors, "L2: at most 8 sectors a line (one byte of bits)");
  for (std::uint32_t n = 0; n <= kMaxSectors; ++n)
    sector_bytes_[n] = std::uint64_t{n} << sector_bits_;
  set_times();
  counters_.slice_bytes.assign(slice_free_.size(), 0);
  for (std::size_t s = 0; s < slice_free_.size(); ++s)
    partition_.push_back(
        static_cast<std::uint32_t>(s / static_cast<std::size_t>(cfg.slices_per_partition)));
}

void L2Timing::set_times() {
  near_ps_ = static_cast<double>(cfg_.hit_latency) * cfg_.period_ps();
  far_ps_ = static_cast<double>(cfg_.hit_latency + cfg_.far_penalty) * cfg_.period_ps();
  const double slice_ps_per_byte = cfg_.period_ps() / static_cast<double>(cfg_.slice_bandwidth);
  const double xbar_ps_per_byte = cfg_.period_ps() / static_cast<double>(cfg_.xbar_bandwidth);
  const double port_ps_per_byte = cfg_.period_ps() / static_cast<double>(cfg_.port_bandwidth);
  for (std::uint32_t n = 0; n <= kMaxSectors; ++n) {
    const auto bytes = static_cast<double>(sector_bytes_[n]);
    slice_ps_[n] = bytes * slice_ps_per_byte;
    xbar_ps_[n] = bytes * xbar_ps_per_byte;
    port_ps_[n] = bytes * port_ps_per_byte;
  }
}

void L2Timing::set_clock(Hz f) {
  SYSTOLE_ASSERT(f.value() > 0, "L2: a clock must be positive");
  cfg_.clock = f;
  set_times();
}

std::uint32_t L2Timing::add_port(std::uint32_t partition) {
  SYSTOLE_ASSERT(partition < static_cast<std::uint32_t>(cfg_.partitions),
                 "L2: a requester's partition must be one of the L2's");
  port_free_.push_back(0.0);
  port_partition_.push_back(partition);
  return static_cast<std::uint32_t>(port_free_.size() - 1);
}

L2Access L2Timing::access(std::uint32_t port, const DmaDescriptor& d, bool write, double now_ps,
                          const std::uint32_t* also, std::uint32_t also_n) {
  cur_ = Current{};
  cur_.port = port;
  cur_.also = also;
  cur_.also_n = also_n;
  cur_.partition = port_partition_.at(port);
  cur_.write = write;
  cur_.now = cur_.done = now_ps;
  fetch_runs_.clear();
  wb_runs_.clear();
  ++counters_.transfers;
  (write ? counters_.bytes_written : counters_.bytes_read) += d.bytes();
  for (std::uint64_t i2 = 0; i2 < d.dims[2].count; ++i2)
    for (std::uint64_t i1 = 0; i1 < d.dims[1].count; ++i1)
      walk_rows(d.addr + i1 * d.dims[1].stride + i2 * d.dims[2].stride, d.dims[0].count,
                d.dims[0].stride, d.row_bytes);
  flush(batched_);
  return finish_access();
}

std::uint16_t L2Timing::sectors(std::uint64_t b0, std::uint64_t b1) const {
  const std::uint64_t sector_mask = (std::uint64_t{1} << sector_bits_) - 1;
  const auto s0 = static_cast<std::uint32_t>(b0 >> sector_bits_);
  const auto s1 = static_cast<std::uint32_t>(b1 >> sector_bits_);
  const std::uint32_t mask = sector_range(s0, s1);
  std::uint32_t full = mask;
  if (b0 & sector_mask) full &= ~(1u << s0);
  if ((b1 + 1) & sector_mask) full &= ~(1u << s1);
  return static_cast<std::uint16_t>(mask | full << 8);
}

// `rows` rows of `bytes` bytes, `stride` apart. Rows a whole number of lines apart that do not
// go back (the next row starts no earlier than this one's last line; a tile's rows) all cut
// their lines alike, and the cursor steps from one to the next without a division.
void L2Timing::walk_rows(std::uint64_t addr, std::uint64_t rows, std::uint64_t stride,
                         std::uint64_t bytes) {
  if (bytes == 0 || rows == 0) return;
  const std::uint64_t line_mask = (std::uint64_t{1} << line_bits_) - 1;
  const std::uint64_t span = ((addr & line_mask) + bytes - 1) >> line_bits_;  // lines - 1
  const std::uint64_t stride_lines = stride >> line_bits_;
  if (rows == 1 || (stride & line_mask) != 0 || stride_lines < span) {
    for (std::uint64_t i = 0; i < rows; ++i) walk_row(addr + i * stride, bytes);
    return;
  }
  const std::uint64_t end = addr + bytes - 1;  // of the first row
  const std::uint64_t first = addr >> line_bits_;
  SYSTOLE_ASSERT((end >> line_bits_) + (rows - 1) * stride_lines < line_limit_,
                 "L2: address beyond the tags' reach");
  const std::uint16_t head = sectors(addr & line_mask, span == 0 ? end & line_mask : line_mask);
  const std::uint16_t tail = sectors(0, end & line_mask);
  const L2AddressMap::Step step = map_.step(stride_lines - span);
  L2AddressMap::Cursor c(map_);
  c.seek(first);
  Pusher push(*this);
  if (span == 0) {  // rows within one line each (a tile's 128 B rows): the shortest loop
    for (std::uint64_t i = 0, ln = first;; ++i, ln += stride_lines) {
      push(c, ln, head);
      if (i + 1 == rows) break;
      c.advance(step);
    }
    return;
  }
  for (std::uint64_t i = 0;; ++i) {
    row_lines(push, c, first + i * stride_lines, span, head, tail, whole_line_);
    if (i + 1 == rows) break;
    c.advance(step);
  }
}

// One row of `bytes` bytes from `addr`.
void L2Timing::walk_row(std::uint64_t addr, std::uint64_t bytes) {
  const std::uint64_t line_mask = (std::uint64_t{1} << line_bits_) - 1;
  const std::uint64_t end = addr + bytes - 1;
  const std::uint64_t first = addr >> line_bits_, last = end >> line_bits_;
  SYSTOLE_ASSERT(last < line_limit_, "L2: address beyond the tags' reach");
  L2AddressMap::Cursor c(map_);
  c.seek(first);
  Pusher push(*this);
  row_lines(push, c, first, last - first,
            sectors(addr & line_mask, first == last ? end & line_mask : line_mask),
            sectors(0, end & line_mask), whole_line_);
}

// A row's lines first .. first + span from the cursor (at `first`), in order: the first
// (`head`) and last (`tail`) may be partial, the ones between are whole (`whole`).
inline void L2Timing::row_lines(Pusher& push, L2AddressMap::Cursor& c, std::uint64_t first,
                                std::uint64_t span, std::uint16_t head, std::uint16_t tail,
                                std::uint16_t whole) {
  push(c, first, head);
  if (span == 0) return;
  for (std::uint64_t ln = first + 1; ln < first + span; ++ln) {
    c.next();
    push(c, ln, whole);
  }
  c.next();
  push(c, first + span, tail);
}

// The oldest n lines were located (and their set blocks prefetched) a batch or more ahead:
// look them up, in two loops over locals (the tag store's byte writes could alias any member
// the compiler would otherwise reload). First the tags in walk order: a hit's short path
// (L2Tags::access_present), a miss through L2Tags::access, the rarer events (evictions,
// merges, fetches) out of line. Then the bandwidth servers (they depend on the sectors and
// the slice only) and the counters, summed per batch. The later lines move to the front.
void L2Timing::flush(const std::uint32_t n) {
  const bool write = cur_.write;
  std::uint64_t sector_hits = 0, misses = 0, sector_misses = 0;
  // A hit that only merges (sectors in flight, nothing to fetch) reads its way's fetch id,
  // which lives apart from the set's block: a cache miss of its own. Such merges wait here,
  // their words prefetched, and run before the next line that fetches or misses (the only
  // events that write fetch ids or open the access's fetch group) or at the end of the batch:
  // the same merges in the same order relative to every fetch, so the same outcome.
  std::uint32_t merges = 0;
  const auto run_merges = [&] {
    for (std::uint32_t k = 0; k < merges; ++k)
      merge_pending(merges_[k].set, merges_[k].way, merges_[k].pend, merges_[k].far);
    merges = 0;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const LineRef& l = batch_[i];
    const auto mask = static_cast<std::uint8_t>(l.sectors);
    const auto full = static_cast<std::uint8_t>(l.sectors >> 8);
    // Sectors whose data the access needs (a whole-sector write needs none) that are valid
    // but still in flight for an earlier miss: the access waits for that fetch (an MSHR
    // merge).
    const auto need = static_cast<std::uint8_t>(write ? mask & ~full : mask);
    L2Hit h;
    if (tags_.access_present(l.set, l.tag, mask, write, full, h)) {
      const auto hit = static_cast<std::uint32_t>(mask & h.was_valid);
      sector_hits += static_cast<std::uint64_t>(popcount(hit));
      sector_misses += hit != mask;  // present, some touched sector not valid
      const auto pend = static_cast<std::uint8_t>(h.pending & need & ~h.missing);
      if (h.missing) {
        run_merges();
        events(l, h.way, h.missing, pend, L2Tags::kEmpty, 0);
      } else if (pend) {
        tags_.prefetch_word(l.set, h.way);
        merges_[merges++] = {l.set, h.way, pend, partition_[l.set >> set_bits_] != cur_.partition};
      }
    } else {
      run_merges();
      const L2LineOutcome o = tags_.access(l.set, l.tag, mask, write, full);
      ++misses;
      events(l, o.way, o.missing, 0, o.evicted ? o.victim : L2Tags::kEmpty, o.victim_dirty);
    }
  }
  run_merges();
  const std::uint32_t partition = cur_.partition;
  const double now = cur_.now;
  double done = cur_.done;
  double port_free = port_free_[cur_.port];
  double* const slice_free = slice_free_.data();
  double* const xbar_free = xbar_free_.data();
  const std::uint32_t* const part_of = partition_.data();
  std::uint64_t* const slice_bytes = counters_.slice_bytes.data();
  const std::uint32_t set_bits = set_bits_;
  const double near_ps = near_ps_, far_ps = far_ps_;
  std::uint64_t sectors = 0, far_lines = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const LineRef& l = batch_[i];
    const std::uint32_t slice = l.set >> set_bits, part = part_of[slice];
    const bool far = part != partition;
    const int k = popcount(l.sectors);
    sectors += static_cast<std::uint64_t>(k);
    far_lines += far;
    // Its sectors cross the slice, the home partition's crossbar port and the requester's
    // port, each first come first served.
    slice_bytes[slice] += sector_bytes_[k];
    double end = serve(slice_free[slice], now, slice_ps_[k]);
    end = serve(xbar_free[part], end, xbar_ps_[k]);
    const double crossed = end;
    end = serve(port_free, crossed, port_ps_[k]);
    for (std::uint32_t j = 0; j < cur_.also_n; ++j)  // a multicast's other receivers
      end = std::max(end, serve(port_free_[cur_.also[j]], crossed, port_ps_[k]));
    done = std::max(done, end + (far ? far_ps : near_ps));
  }
  cur_.done = done;
  port_free_[cur_.port] = port_free;
  L2Counters& c = counters_;
  c.line_accesses += n;
  c.line_misses += misses;
  c.line_sector_misses += sector_misses;
  c.line_hits += n - misses - sector_misses;
  c.sector_accesses += sectors;
  c.sector_hits += sector_hits;
  c.sector_misses += sectors - sector_hits;
  c.far_accesses += far_lines;
  std::copy(batch_.begin() + n, batch_.begin() + batched_, batch_.begin());
  batched_ -= n;
}

// A line's eviction of `victim` (L2Tags::kEmpty: none) with its `dirty` sectors written
// back, its `pend` sectors merged into an earlier fetch, its `missing` sectors fetched into
// `way`, in this order.
void L2Timing::events(const LineRef& l, std::uint32_t way, std::uint8_t missing, std::uint8_t pend,
                      std::uint32_t victim, std::uint8_t dirty) {
  const std::uint32_t slice = l.set >> set_bits_;
  const bool far = partition_[slice] != cur_.partition;
  if (victim != L2Tags::kEmpty) {
    ++counters_.evictions;
    if (dirty) write_back(map_.line_of(slice, l.set & (sets_ - 1), victim), dirty);
  }
  if (pend) merge_pending(l.set, way, pend, far);
  if (missing) fetch(l.line, l.set, way, missing, far);
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

// The runs of sectors `mask` of `line` join `runs` (a whole line: one run, no loop).
inline void L2Timing::add_sectors(std::vector<Run>& runs, std::uint64_t line,
                                  std::uint8_t mask) const {
  const std::uint64_t base = line << line_bits_;
  if (mask == all_sectors_) return add_run(runs, base, std::uint64_t{1} << line_bits_);
  for_each_run(mask, [&](std::uint32_t s0, std::uint32_t n) {
    add_run(runs, base + (std::uint64_t{s0} << sector_bits_), std::uint64_t{n} << sector_bits_);
  });
}

void L2Timing::fetch(std::uint64_t ln, std::uint32_t set, std::uint32_t way, std::uint8_t missing,
                     bool far) {
  if (!cur_.group) cur_.group = fetch_order_.open();
  SYSTOLE_ASSERT(cur_.group < (std::uint64_t{1} << 32), "L2: fetch groups beyond 32 bits");
  tags_.pending(set, way) |= missing;
  tags_.word(set, way) = static_cast<std::uint32_t>(cur_.group);
  (far ? cur_.own_far : cur_.own_near) = true;
  counters_.sectors_fetched += static_cast<std::uint64_t>(popcount(missing));
  add_sectors(fetch_runs_, ln, missing);
}

void L2Timing::write_back(std::uint64_t victim_line, std::uint8_t dirty) {
  ++counters_.writebacks;
  counters_.writeback_sectors += static_cast<std::uint64_t>(popcount(dirty));
  add_sectors(wb_runs_, victim_line, dirty);
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

}  // namespace systole::models
