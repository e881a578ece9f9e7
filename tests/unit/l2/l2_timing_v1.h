#pragma once
// The L2 timing model as it was before its speed work (commit 4322e41: models/l2/l2_tags.* and
// l2_timing.*, frozen here with their names in namespace test::v1): the oracle the fast model
// must equal bit for bit (test_l2_equivalence.cpp). Do not optimise or edit it; if the model's
// behaviour is changed on purpose, change this copy the same way or drop the test.

#include <array>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "models/common/fcfs_server.h"
#include "models/dma/dma_descriptor.h"
#include "models/l2/l2_address_map.h"
#include "models/l2/l2_config.h"
#include "models/l2/l2_order.h"
#include "models/l2/l2_stats.h"
#include "models/l2/l2_timing.h"

namespace systole::test::v1 {

using models::DmaDescriptor;
using models::DmaDim;
using models::FcfsServer;
using models::L2Access;
using models::L2AddressMap;
using models::L2Config;
using models::L2Counters;
using models::L2Hash;
using models::L2Order;
using models::L2Settled;

/// What one line access did to the tags.
struct L2LineOutcome {
  bool tag_hit = false;           ///< the line was present
  std::uint8_t was_valid = 0;     ///< its valid sectors before the access (0 on a tag miss)
  std::uint8_t missing = 0;       ///< sectors to fetch from memory
  bool evicted = false;           ///< a valid line was replaced
  std::uint8_t victim_dirty = 0;  ///< its dirty sectors, written back
  std::uint32_t victim = 0;       ///< its tag
  std::uint32_t slot = 0;         ///< set x ways + way now holding the line
  std::uint32_t way = 0;          ///< the way now holding the line
};

/// Tags, recency order and sector bits of every way of every set (sets count over all
/// slices). A tag is any 32-bit value but kEmpty that tells the lines of one set apart.
class L2Tags {
 public:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};

  L2Tags(std::uint32_t sets, std::uint32_t ways);

  /// Accesses sectors `mask` of the line `tag` in `set`. A read fetches the sectors of `mask`
  /// not valid; a write fetches those of `mask` not in `full` (written whole) and not valid,
  /// and marks all of `mask` dirty. A missing line takes the least recently used way (empty
  /// ways are the least recent of all).
  L2LineOutcome access(std::uint32_t set, std::uint32_t tag, std::uint8_t mask, bool write,
                       std::uint8_t full) {
    std::uint32_t* b = block(set);
    std::uint8_t* order = bytes(b);  // way numbers, most recent first
    std::uint8_t* valid = order + ways_;
    std::uint8_t* dirty = valid + ways_;
    std::uint32_t way = find(b, tag);
    L2LineOutcome o;
    std::uint32_t pos = ways_ - 1;  // the way's place in the order
    if (way < ways_) {
      o.tag_hit = true;
      o.was_valid = valid[way];
      pos = place(order, way);
    } else {
      way = order[pos];
      if (b[way] != kEmpty) {
        o.evicted = true;
        o.victim = b[way];
        o.victim_dirty = dirty[way];
      }
      b[way] = tag;
      valid[way] = dirty[way] = 0;
      dirty[way + ways_] = 0;  // the line's spare bits (pending())
    }
    std::memmove(order + 1, order, pos);
    order[0] = static_cast<std::uint8_t>(way);
    o.slot = set * ways_ + way;
    o.way = way;
    o.missing = static_cast<std::uint8_t>((write ? mask & ~full : mask) & ~valid[way]);
    valid[way] |= mask;
    if (write) dirty[way] |= mask;
    return o;
  }

  /// Eight spare bits per way for the timing model (sectors in flight), cleared on allocation.
  std::uint8_t& pending(std::uint32_t set, std::uint32_t way) {
    return bytes(block(set))[3 * ways_ + way];
  }
  /// A spare word per way for the timing model (the fetch bringing its sectors).
  std::uint32_t& word(std::uint32_t set, std::uint32_t way) {
    return block(set)[bytes_words_ + ways_ + way];
  }
  /// Asks the memory system for `set`'s block ahead of its access.
  void prefetch(std::uint32_t set) const {
    const char* p = reinterpret_cast<const char*>(base_ + std::uint64_t{set} * block_words_);
    for (std::uint32_t off = 0; off < block_words_ * 4; off += 64) __builtin_prefetch(p + off, 1);
  }

  std::uint32_t ways() const { return ways_; }
  std::uint32_t sets() const { return sets_; }
  std::uint64_t slots() const { return std::uint64_t{sets_} * ways_; }
  /// Valid lines (for tests and stats).
  std::uint64_t occupied() const;
  /// Dirty sectors over all lines.
  std::uint64_t dirty_sectors() const;

 private:
  /// The way holding `tag`, or ways_: all tags compared at once (4 a step with SSE2).
  std::uint32_t find(const std::uint32_t* b, std::uint32_t tag) const {
    std::uint64_t hit = 0;
    std::uint32_t w = 0;
#if defined(__SSE2__)
    const __m128i t = _mm_set1_epi32(static_cast<int>(tag));
    for (; w + 4 <= ways_; w += 4) {
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(b + w));
      hit |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, t))))
             << w;
    }
#endif
    for (; w < ways_; ++w) hit |= static_cast<std::uint64_t>(b[w] == tag) << w;
    return hit ? static_cast<std::uint32_t>(__builtin_ctzll(hit)) : ways_;
  }
  /// Where `way` stands in the recency order (16 places a step with SSE2).
  std::uint32_t place(const std::uint8_t* order, std::uint32_t way) const {
    std::uint32_t i = 0;
#if defined(__SSE2__)
    const __m128i t = _mm_set1_epi8(static_cast<char>(way));
    for (; i + 16 <= ways_; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(order + i));
      const int m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, t));
      if (m) return i + static_cast<std::uint32_t>(__builtin_ctz(static_cast<unsigned>(m)));
    }
#endif
    for (; i < ways_; ++i)
      if (order[i] == way) return i;
    return ways_ - 1;
  }
  std::uint32_t* block(std::uint32_t set) { return base_ + std::uint64_t{set} * block_words_; }
  const std::uint32_t* block(std::uint32_t set) const {
    return base_ + std::uint64_t{set} * block_words_;
  }
  /// The block's byte arrays after its tags: order, valid, dirty, pending (ways each); the
  /// spare words follow them.
  std::uint8_t* bytes(std::uint32_t* b) const { return reinterpret_cast<std::uint8_t*>(b + ways_); }
  const std::uint8_t* bytes(const std::uint32_t* b) const {
    return reinterpret_cast<const std::uint8_t*>(b + ways_);
  }

  std::uint32_t sets_, ways_;
  std::uint32_t bytes_words_;         // words of the byte arrays (4 bytes a way), whole lines
  std::uint32_t block_words_;         // 32-bit words per set block, a multiple of 16 (64 B)
  std::vector<std::uint32_t> store_;  // the blocks, plus room to align them
  std::uint32_t* base_;               // the first block, 64-byte aligned
};

/// The L2 timing model: tags, sector bits, slice/crossbar/port servers, merged misses.
class L2Timing {
 public:
  explicit L2Timing(const L2Config& cfg);

  /// A requester's crossbar port in partition `partition`; returns its index for access().
  std::uint32_t add_port(std::uint32_t partition);
  /// Looks up transfer `d` (a write if `write`) from `port`, accepted at `now_ps`. Its
  /// downstream reads and writes are in fetches() and writebacks() until the next access.
  L2Access access(std::uint32_t port, const DmaDescriptor& d, bool write, double now_ps);
  const std::vector<DmaDescriptor>& fetches() const { return fetch_out_; }
  const std::vector<DmaDescriptor>& writebacks() const { return wb_out_; }

  /// The oldest downstream read not yet arrived has arrived at `now_ps`; returns the accesses
  /// this settles (valid until the next call).
  const std::vector<L2Settled>& fetch_arrived(double now_ps);
  /// The oldest downstream write not yet accepted was accepted by the memory at `now_ps`.
  const std::vector<L2Settled>& writeback_accepted(double now_ps);

  const L2Config& config() const { return cfg_; }
  const L2Counters& counters() const { return counters_; }
  const L2Tags& tags() const { return tags_; }
  const L2AddressMap& address_map() const { return map_; }
  std::uint32_t partition_of_slice(std::uint32_t slice) const { return partition_[slice]; }
  /// Accesses waiting for downstream transfers.
  std::size_t waiting() const { return waiting_.size(); }

 private:
  struct LineRef {  // a line of the walk, located, waiting for its lookup
    std::uint64_t line;
    std::uint32_t slice, set, tag;
    std::uint8_t mask, full;
  };
  static constexpr std::uint32_t kBatch = 32;  // lines located (and prefetched) ahead
  struct Run {
    std::uint64_t addr, bytes;
  };
  struct Current {  // the access being walked
    std::uint32_t port = 0, partition = 0;
    bool write = false;
    double now = 0, done = 0;
    std::uint64_t group = 0;  // its fetch group, opened at its first missing sector
    bool own_near = false, own_far = false;
    std::uint64_t near_dep = 0, far_dep = 0;  // latest earlier fetch groups it merged into
  };
  struct Waiting {
    double done;
    std::uint32_t deps;
  };

  void walk_row(std::uint64_t addr, std::uint64_t bytes);
  void push(const LineRef& l) {
    tags_.prefetch(l.slice * sets_ + l.set);
    batch_[batched_++] = l;
    if (batched_ == kBatch) flush();
  }
  void flush();
  void line(const LineRef& l);
  void merge_pending(std::uint32_t set, std::uint32_t way, std::uint8_t pend, bool far);
  void fetch(std::uint64_t line, std::uint32_t set, std::uint32_t way, std::uint8_t missing,
             bool far);
  void write_back(std::uint64_t victim_line, std::uint8_t dirty);
  static void add_run(std::vector<Run>& runs, std::uint64_t addr, std::uint64_t bytes);
  static void to_descriptors(const std::vector<Run>& runs, std::vector<DmaDescriptor>& out);
  L2Access finish_access();
  void settle(std::uint64_t id, double at_ps);

  L2Config cfg_;
  L2AddressMap map_;
  L2AddressMap::Cursor cursor_;
  std::array<LineRef, kBatch> batch_{};
  std::uint32_t batched_ = 0;
  L2Tags tags_;
  std::uint32_t sectors_, sets_, line_bits_, sector_bits_;
  std::uint8_t all_sectors_;
  double slice_ps_per_byte_, xbar_ps_per_byte_, port_ps_per_byte_;
  double near_ps_, far_ps_;  // hit latency, near and far
  std::vector<FcfsServer> slices_, xbars_, ports_;
  std::vector<std::uint32_t> port_partition_;
  std::vector<std::uint32_t> partition_;  // of each slice
  L2Order fetch_order_, wb_order_;
  std::unordered_map<std::uint64_t, Waiting> waiting_;
  std::uint64_t next_id_ = 1;
  Current cur_;
  std::vector<Run> fetch_runs_, wb_runs_;
  std::vector<DmaDescriptor> fetch_out_, wb_out_;
  std::vector<L2Settled> settled_;
  L2Counters counters_;
};

}  // namespace systole::test::v1
