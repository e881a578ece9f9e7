#pragma once
// A deliberately simple reference of the L2's tags and address walk, for the property tests:
// a std::list per set (most recent first), a std::vector<bool> of valid and dirty bits per
// line, the slice and set of a line computed with plain division from the README's formulas,
// and a byte-by-byte walk of a transfer. Slow and obvious; shares no code with models/l2.

#include <cstdint>
#include <list>
#include <vector>

#include "models/dma/dma_descriptor.h"

namespace systole::test {

/// What one line access did (the fields L2LineOutcome reports, but the slot).
struct RefOutcome {
  bool tag_hit = false;
  std::vector<bool> was_valid, missing;
  bool evicted = false;
  std::uint64_t victim = 0;
  std::vector<bool> victim_dirty;
};

/// List-per-set LRU cache with sector bits; write-back, write-allocate per sector.
class RefTags {
 public:
  RefTags(std::uint32_t sets, std::uint32_t ways, std::uint32_t sectors)
      : sets_(sets), ways_(ways), sectors_(sectors) {}

  RefOutcome access(std::uint32_t set, std::uint64_t line, const std::vector<bool>& touched,
                    bool write, const std::vector<bool>& whole) {
    std::list<Line>& s = sets_[set];
    RefOutcome o;
    auto it = s.begin();
    while (it != s.end() && it->line != line) ++it;
    if (it != s.end()) {
      o.tag_hit = true;
      s.splice(s.begin(), s, it);  // most recent first
    } else {
      if (s.size() == ways_) {
        o.evicted = true;
        o.victim = s.back().line;
        o.victim_dirty = s.back().dirty;
        s.pop_back();
      }
      s.push_front({line, std::vector<bool>(sectors_), std::vector<bool>(sectors_)});
    }
    Line& l = s.front();
    o.was_valid = o.tag_hit ? l.valid : std::vector<bool>(sectors_);
    o.missing.assign(sectors_, false);
    for (std::uint32_t i = 0; i < sectors_; ++i) {
      if (!touched[i]) continue;
      const bool needs_data = !write || !whole[i];
      if (needs_data && !l.valid[i]) o.missing[i] = true;
      l.valid[i] = true;
      if (write) l.dirty[i] = true;
    }
    if (!o.evicted) o.victim_dirty.assign(sectors_, false);
    return o;
  }

 private:
  struct Line {
    std::uint64_t line;
    std::vector<bool> valid, dirty;
  };
  std::vector<std::list<Line>> sets_;
  std::uint32_t ways_, sectors_;
};

/// The README's mapping, by division: line = q x slices + r, p = q mod (sets x ways);
/// slice = (r + fold(p) mod slices) mod slices; set = (q mod sets) XOR fold(p / sets); fold
/// XORs the chunks of a value, each as wide as the field (slices rounded up to a power of two).
inline std::uint64_t ref_fold(std::uint64_t x, std::uint32_t width) {
  if (width == 1) return 0;
  std::uint64_t h = 0;
  while (x > 0) {
    h ^= x % width;
    x /= width;
  }
  return h;
}

struct RefMap {
  std::uint32_t slices, sets, ways;
  bool hash;
  std::uint32_t slice(std::uint64_t line) const {
    std::uint32_t width = 1;
    while (width < slices) width *= 2;
    const std::uint64_t q = line / slices, r = line % slices, p = q % (sets * ways);
    return static_cast<std::uint32_t>((r + (hash ? ref_fold(p, width) % slices : 0)) % slices);
  }
  std::uint32_t set(std::uint64_t line) const {
    const std::uint64_t q = line / slices, p = q % (sets * ways);
    return static_cast<std::uint32_t>((q % sets) ^ (hash ? ref_fold(p / sets, sets) : 0));
  }
};

}  // namespace systole::test
