#pragma once
// The L2's tag store: set-associative, LRU, sectored lines with a valid and a dirty bit per
// sector; write-back and write-allocate at sector granularity (a write that covers a sector
// whole allocates it without a fetch; a partly written sector is fetched). One 64-byte-aligned
// block per set holds its ways' 32-bit tags, their recency order (way numbers, most recent
// first) and their sector bits side by side (two cache lines for 16 ways), so a lookup touches
// one block and prefetch() can fetch it ahead; the tag compare has no early exit and the LRU
// update is a move to the front, so nothing branches on data per way. No allocation per
// access. Exact: proven equal to a list-per-set reference cache on random streams
// (tests/unit/l2/test_l2_tags.cpp). No timing here.

#include <cstdint>
#include <vector>

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
    std::uint32_t way = ways_;
    for (std::uint32_t w = 0; w < ways_; ++w) way = b[w] == tag ? w : way;
    L2LineOutcome o;
    std::uint32_t pos = ways_ - 1;  // the way's place in the order
    if (way < ways_) {
      o.tag_hit = true;
      o.was_valid = valid[way];
      for (std::uint32_t i = 0; i < ways_; ++i) pos = order[i] == way ? i : pos;
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
    for (std::uint32_t i = pos; i > 0; --i) order[i] = order[i - 1];
    order[0] = static_cast<std::uint8_t>(way);
    o.slot = set * ways_ + way;
    o.missing = static_cast<std::uint8_t>((write ? mask & ~full : mask) & ~valid[way]);
    valid[way] |= mask;
    if (write) dirty[way] |= mask;
    return o;
  }

  /// Eight spare bits per way for the timing model (sectors in flight), cleared on allocation.
  std::uint8_t& pending(std::uint32_t slot) {
    return bytes(block(slot / ways_))[3 * ways_ + slot % ways_];
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
  std::uint32_t* base_;               // the first block, 64-byte aligned
};

}  // namespace systole::models
