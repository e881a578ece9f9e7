#pragma once
// The L2's tag store: set-associative, LRU, sectored lines with a valid and a dirty bit per
// sector; write-back and write-allocate at sector granularity (a write that covers a sector
// whole allocates it without a fetch; a partly written sector is fetched). One block per set,
// aligned to 128 bytes, holds its ways' 32-bit tags, their recency order (way numbers, most
// recent first) and their sector bits side by side (two cache lines for 16 ways, both touched
// by a lookup), so prefetch() can fetch it ahead; a spare word per way for the timing model
// lives apart (touched by misses only). Up to 16 ways the tag compare is four SSE2 compares
// and the recency order one 64-bit word of 4-bit way numbers, searched and updated with a few
// word operations: nothing loops or branches on the data per way. No allocation per access.
// Exact: proven equal to a list-per-set reference cache on random streams
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
  std::uint8_t pending = 0;       ///< its pending() bits (0 when just allocated)
};

/// What a hit did (the hit half of L2LineOutcome).
struct L2Hit {
  std::uint32_t way = 0;       ///< the way holding the line
  std::uint8_t was_valid = 0;  ///< its valid sectors before the access
  std::uint8_t missing = 0;    ///< sectors to fetch from memory
  std::uint8_t pending = 0;    ///< its pending() bits
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
    // Locals: the byte stores below may alias any member.
    const std::uint32_t ways = ways_;
    std::uint32_t* const b = block(set);
    std::uint8_t* const valid = reinterpret_cast<std::uint8_t*>(b) + valid_;
    std::uint8_t* const dirty = valid + ways;
    std::uint8_t* const spare = dirty + ways;
    std::uint32_t way = find(b, tag);
    L2LineOutcome o;
    o.tag_hit = way < ways;
    way = promote(b, way);
    if (o.tag_hit) {
      o.was_valid = valid[way];
    } else {
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

  /// access() when the line is present (the common case, kept short): fills `h` and returns
  /// true. When it is absent, changes nothing and returns false (then call access()).
  bool access_present(std::uint32_t set, std::uint32_t tag, std::uint8_t mask, bool write,
                      std::uint8_t full, L2Hit& h) {
    std::uint32_t* const b = block(set);
    const std::uint32_t ways = ways_, valid_at = valid_;  // locals, as in access()
    const std::uint32_t way = find(b, tag);
    if (way == ways) return false;
    promote(b, way);
    std::uint8_t* const valid = reinterpret_cast<std::uint8_t*>(b) + valid_at;
    const std::uint8_t was = valid[way];
    h.way = way;
    h.was_valid = was;
    h.missing = static_cast<std::uint8_t>((write ? mask & ~full : mask) & ~was);
    h.pending = valid[2 * ways + way];
    valid[way] = static_cast<std::uint8_t>(was | mask);
    if (write) valid[ways + way] |= mask;
    return true;
  }

  /// Eight spare bits per way for the timing model (sectors in flight), cleared on allocation.
  std::uint8_t& pending(std::uint32_t set, std::uint32_t way) {
    return reinterpret_cast<std::uint8_t*>(block(set))[valid_ + 2 * ways_ + way];
  }
  /// A spare word per way for the timing model (the fetch bringing its sectors).
  std::uint32_t& word(std::uint32_t set, std::uint32_t way) {
    return words_[std::uint64_t{set} * ways_ + way];
  }
  /// Asks the memory system for word(set, way) ahead of its use.
  void prefetch_word(std::uint32_t set, std::uint32_t way) const {
    __builtin_prefetch(words_.data() + std::uint64_t{set} * ways_ + way, 1);
  }
  /// Asks the memory system for `set`'s block ahead of its access: its first two cache lines
  /// (16 ways: all of it), no loop.
  void prefetch(std::uint32_t set) const { prefetcher()(set); }
  /// prefetch() with the store's geometry copied out, for a loop to keep in registers (stores
  /// of the loop's own could otherwise alias the members it reads).
  struct Prefetcher {
    const char* base;
    std::uint64_t block_bytes;
    std::uint32_t second_line;
    void operator()(std::uint32_t set) const {
      const char* p = base + std::uint64_t{set} * block_bytes;
      __builtin_prefetch(p, 1);
      __builtin_prefetch(p + second_line, 1);
    }
  };
  Prefetcher prefetcher() const {
    return {reinterpret_cast<const char*>(base_), std::uint64_t{block_words_} * 4, second_line_};
  }

  std::uint32_t ways() const { return ways_; }
  std::uint32_t sets() const { return sets_; }
  std::uint64_t slots() const { return std::uint64_t{sets_} * ways_; }
  /// Valid lines (for tests and stats).
  std::uint64_t occupied() const;
  /// Dirty sectors over all lines.
  std::uint64_t dirty_sectors() const;

 private:
  static constexpr std::uint64_t kNibbles = 0x1111111111111111;  // 1 in every 4-bit place

  /// Ways 0..15 whose tag is `tag` in the 16 words from `b`, as bits (four SSE2 compares
  /// packed into one 16-bit mask).
  static std::uint64_t match16(const std::uint32_t* b, std::uint32_t tag) {
#if defined(__SSE2__)
    const __m128i t = _mm_set1_epi32(static_cast<int>(tag));
    const auto* v = reinterpret_cast<const __m128i*>(b);
    const __m128i lo = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v), t),
                                       _mm_cmpeq_epi32(_mm_load_si128(v + 1), t));
    const __m128i hi = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v + 2), t),
                                       _mm_cmpeq_epi32(_mm_load_si128(v + 3), t));
    return static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)));
#else
    std::uint64_t m = 0;
    for (std::uint32_t w = 0; w < 16; ++w) m |= static_cast<std::uint64_t>(b[w] == tag) << w;
    return m;
#endif
  }
  /// The way holding `tag`, or ways_: every tag compared, 16 at a time (the words after the
  /// last tag belong to the block, whose size is a multiple of 16 words; their matches are
  /// masked off).
  std::uint32_t find(const std::uint32_t* b, std::uint32_t tag) const {
    std::uint64_t hit = match16(b, tag);
    for (std::uint32_t w = 16; w < ways_; w += 16) hit |= match16(b + w, tag) << w;
    hit &= way_mask_;
    return hit ? static_cast<std::uint32_t>(__builtin_ctzll(hit)) : ways_;
  }
  /// Makes `way` (ways_: the least recent way, which it returns) the most recent of its set.
  /// Up to 16 ways the order is a word of 4-bit way numbers, place 0 (the most recent) in the
  /// lowest bits: the way's place is its lowest nibble equal to it (a nibble-wise zero test of
  /// the word XOR the way in every nibble; places past the ways are above every real one), and
  /// places 0..place-1 move up one while the way goes to place 0. More ways: a byte a place.
  std::uint32_t promote(std::uint32_t* b, std::uint32_t way) const {
    std::uint8_t* const order = reinterpret_cast<std::uint8_t*>(b) + order_;
    const std::uint32_t ways = ways_;
    if (ways <= 16) {
      std::uint64_t o;
      std::memcpy(&o, order, sizeof o);
      std::uint32_t top = 4 * ways - 1;  // the top bit of the way's place
      if (way < ways) {
        const std::uint64_t x = o ^ (kNibbles * way);
        top = static_cast<std::uint32_t>(__builtin_ctzll((x - kNibbles) & ~x & kNibbles << 3));
      } else {
        way = static_cast<std::uint32_t>(o >> (top - 3)) & 15;
      }
      const std::uint64_t moved = ~std::uint64_t{0} >> (63 - top);  // places 0..place
      o = (o ^ ((o ^ (o << 4)) & moved)) | way;
      std::memcpy(order, &o, sizeof o);
      return way;
    }
    std::uint32_t pos = ways - 1;
    if (way < ways)
      for (pos = 0; order[pos] != way;) ++pos;
    else
      way = order[pos];
    std::memmove(order + 1, order, pos);
    order[0] = static_cast<std::uint8_t>(way);
    return way;
  }
  std::uint32_t* block(std::uint32_t set) { return base_ + std::uint64_t{set} * block_words_; }
  const std::uint32_t* block(std::uint32_t set) const {
    return base_ + std::uint64_t{set} * block_words_;
  }
  const std::uint8_t* bytes(const std::uint32_t* b) const {
    return reinterpret_cast<const std::uint8_t*>(b);
  }

  std::uint32_t sets_, ways_;
  // A block, in bytes: tags (4 a way) from 0, the recency order from order_ (8 bytes up to 16
  // ways, else one a way), then valid_, dirty and pending bits (one byte a way each).
  std::uint32_t order_, valid_;
  std::uint32_t block_words_;         // 32-bit words per set block, a multiple of 16 (64 B)
  std::vector<std::uint32_t> store_;  // the blocks, plus room to align them
  std::uint32_t* base_;               // the first block, 128-byte aligned
  std::uint64_t way_mask_;            // bits 0 .. ways - 1
  std::uint32_t second_line_;         // offset of a block's second cache line (or its first)
  std::vector<std::uint32_t> words_;  // the spare words, set x ways + way
};

}  // namespace systole::models
