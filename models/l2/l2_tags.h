#pragma once
// The L2's tag store: set-associative, LRU, sectored lines with a valid and a dirty bit per
// sector; write-back and write-allocate at sector granularity (a write that covers a sector
// whole allocates it without a fetch; a partly written sector is fetched). One 64-byte-aligned
// block per set holds its ways' 32-bit tags, their recency order (way numbers, most recent
// first), their sector bits and a spare word for the timing model side by side (three cache
// lines for 16 ways, a hit touches two), so a lookup touches one block and prefetch() can
// fetch it ahead; the tag compare has no early exit and the LRU
// update is a move to the front, so nothing branches on data per way. No allocation per
// access. Exact: proven equal to a list-per-set reference cache on random streams
// (tests/unit/l2/test_l2_tags.cpp). No timing here.

#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace systole::models {

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

}  // namespace systole::models
