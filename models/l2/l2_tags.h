#pragma once
// The L2's tag store: set-associative, LRU, sectored lines with a valid and a dirty bit per
// sector; write-back and write-allocate at sector granularity (a write that covers a sector
// whole allocates it without a fetch; a partly written sector is fetched). One block per set,
// aligned to 128 bytes, holds its ways' 32-bit tags, their recency order (way numbers, most
// recent first) and their sector bits side by side (two cache lines for 16 ways, both touched
// by a lookup), so prefetch() can fetch it ahead; a spare word per way for the timing model
// lives apart (touched by misses only). Up to 16 ways the tag compare, the place in the
// recency order and the move to its front are a few SSE2 instructions each, with no branch on
// the data per way. No allocation per access. Exact: proven equal to a list-per-set reference
// cache on random streams (tests/unit/l2/test_l2_tags.cpp). No timing here.

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
  std::uint8_t pending = 0;       ///< its pending() bits (0 when just allocated)
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
    const std::uint32_t ways = ways_;  // a local: the byte stores below may alias any member
    std::uint32_t* const b = block(set);
    std::uint8_t* const order = bytes(b);  // way numbers, most recent first
    std::uint8_t* const valid = order + ways;
    std::uint8_t* const dirty = valid + ways;
    std::uint8_t* const spare = dirty + ways;
    std::uint32_t way = find(b, tag, ways);
    L2LineOutcome o;
    if (way < ways) {
      o.tag_hit = true;
      o.was_valid = valid[way];
      to_front(order, place(order, way, ways), way, ways);
    } else {
      way = order[ways - 1];
      to_front(order, ways - 1, way, ways);
      if (b[way] != kEmpty) {
        o.evicted = true;
        o.victim = b[way];
        o.victim_dirty = dirty[way];
      }
      b[way] = tag;
      valid[way] = dirty[way] = spare[way] = 0;  // spare: the timing model's pending()
    }
    o.slot = set * ways + way;
    o.way = way;
    o.missing = static_cast<std::uint8_t>((write ? mask & ~full : mask) & ~valid[way]);
    o.pending = spare[way];
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
    return words_[std::uint64_t{set} * ways_ + way];
  }
  /// Asks the memory system for `set`'s block ahead of its access: its first two cache lines
  /// (16 ways: all of it), no loop.
  void prefetch(std::uint32_t set) const {
    const char* p = reinterpret_cast<const char*>(base_ + std::uint64_t{set} * block_words_);
    __builtin_prefetch(p, 1);
    __builtin_prefetch(p + second_line_, 1);
  }

  std::uint32_t ways() const { return ways_; }
  std::uint32_t sets() const { return sets_; }
  std::uint64_t slots() const { return std::uint64_t{sets_} * ways_; }
  /// Valid lines (for tests and stats).
  std::uint64_t occupied() const;
  /// Dirty sectors over all lines.
  std::uint64_t dirty_sectors() const;

 private:
  /// The way holding `tag`, or `ways`: all tags compared at once, 16 a step with SSE2 (four
  /// compares packed into one 16-bit mask; the words after the last tag belong to the block,
  /// whose size is a multiple of 16 words, and their matches are masked off).
  std::uint32_t find(const std::uint32_t* b, std::uint32_t tag, std::uint32_t ways) const {
    std::uint64_t hit = 0;
#if defined(__SSE2__)
    const __m128i t = _mm_set1_epi32(static_cast<int>(tag));
    for (std::uint32_t w = 0; w < ways; w += 16) {
      const auto* v = reinterpret_cast<const __m128i*>(b + w);
      const __m128i lo = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v), t),
                                         _mm_cmpeq_epi32(_mm_load_si128(v + 1), t));
      const __m128i hi = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v + 2), t),
                                         _mm_cmpeq_epi32(_mm_load_si128(v + 3), t));
      hit |= static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi))) << w;
    }
    hit &= way_mask_;
#else
    for (std::uint32_t w = 0; w < ways; ++w) hit |= static_cast<std::uint64_t>(b[w] == tag) << w;
#endif
    return hit ? static_cast<std::uint32_t>(__builtin_ctzll(hit)) : ways;
  }
  /// Where `way` stands in the recency order: up to 16 ways in one SSE2 compare (the bytes
  /// after the order belong to the block; their matches are masked off).
  std::uint32_t place(const std::uint8_t* order, std::uint32_t way, std::uint32_t ways) const {
#if defined(__SSE2__)
    if (ways <= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(order));
      const auto m = static_cast<std::uint32_t>(
          _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(static_cast<char>(way)))));
      return static_cast<std::uint32_t>(__builtin_ctz(m & static_cast<std::uint32_t>(way_mask_)));
    }
#endif
    std::uint32_t i = 0;
    while (order[i] != way) ++i;
    return i;
  }
  /// Moves the way at place `pos` of the recency order to its front. Up to 16 ways: one SSE2
  /// blend of the order and the order shifted by one place (places 0..pos take the shifted
  /// bytes, the rest and the bytes after the order are stored back unchanged).
  static void to_front(std::uint8_t* order, std::uint32_t pos, std::uint32_t way,
                       std::uint32_t ways) {
#if defined(__SSE2__)
    if (ways <= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(order));
      const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
      const __m128i head = _mm_cmplt_epi8(iota, _mm_set1_epi8(static_cast<char>(pos + 1)));
      const __m128i moved =
          _mm_or_si128(_mm_slli_si128(v, 1), _mm_cvtsi32_si128(static_cast<int>(way)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(order),
                       _mm_or_si128(_mm_and_si128(head, moved), _mm_andnot_si128(head, v)));
      return;
    }
#endif
    std::memmove(order + 1, order, pos);
    order[0] = static_cast<std::uint8_t>(way);
  }
  std::uint32_t* block(std::uint32_t set) { return base_ + std::uint64_t{set} * block_words_; }
  const std::uint32_t* block(std::uint32_t set) const {
    return base_ + std::uint64_t{set} * block_words_;
  }
  /// The block's byte arrays after its tags: order, valid, dirty, pending (ways each).
  std::uint8_t* bytes(std::uint32_t* b) const { return reinterpret_cast<std::uint8_t*>(b + ways_); }
  const std::uint8_t* bytes(const std::uint32_t* b) const {
    return reinterpret_cast<const std::uint8_t*>(b + ways_);
  }

  std::uint32_t sets_, ways_;
  std::uint32_t block_words_;         // 32-bit words per set block, a multiple of 16 (64 B)
  std::vector<std::uint32_t> store_;  // the blocks, plus room to align them
  std::uint32_t* base_;               // the first block, 128-byte aligned
  std::uint64_t way_mask_;            // bits 0 .. ways - 1
  std::uint32_t second_line_;         // offset of a block's second cache line (or its first)
  std::vector<std::uint32_t> words_;  // the spare words, set x ways + way
};

}  // namespace systole::models
