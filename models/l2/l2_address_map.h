#pragma once
// Where an L2 line lives: its slice (and so its home partition) and its set inside the slice.
// A line index L (address / line) is split as L = q x slices + r; the slice is r plus a hash
// of q (mod slices) and the set is the low bits of q XOR a hash of the bits above them. Both
// hashes XOR-fold to the field's width (ASSUMPTION: NVIDIA's hash is unpublished; like
// models/hbm's address_hash it spreads power-of-two strides) and read q modulo sets x ways
// only, so lines a whole capacity apart share a set: a stream that evicts another evicts it in
// order (its write-backs stay contiguous). For fixed upper bits each field is a permutation, so
// the mapping is a bijection: any aligned block of capacity / line lines fills every set of
// every slice exactly `ways` times. Both hashes depend on q modulo sets x ways alone, so they
// are tabulated once (4096 entries for A100 and H100) and a walk's cursor looks them up.
// Plain C++, exact; no state but that table.

#include <cstdint>
#include <vector>

namespace systole::models {

/// A line's slice (0 .. slices-1, partition-major) and set inside that slice.
struct L2Location {
  std::uint32_t slice = 0;
  std::uint32_t set = 0;
};

/// Line index -> (slice, set); `locate` divides, the Cursor walks consecutive lines without.
class L2AddressMap {
 public:
  L2AddressMap(std::uint32_t slices, std::uint32_t sets_per_slice, std::uint32_t ways, bool hash)
      : slices_(slices),
        set_bits_(log2(sets_per_slice)),
        period_(std::uint64_t{sets_per_slice} * ways),
        period_mask_((period_ & (period_ - 1)) == 0 ? period_ - 1 : 0),
        inv_slices_(1.0 / slices),
        hash_(hash) {
    while ((1u << slice_bits_) < slices_) ++slice_bits_;
    slice_chunks_ = chunks(width(period_ - 1), slice_bits_);
    set_chunks_ = chunks(width((period_ - 1) >> set_bits_), set_bits_);
    if (period_ <= kTabulated && slices_ <= 0x10000 && set_bits_ <= 16)
      for (std::uint64_t p = 0; p < period_; ++p) folds_.push_back(fold_both(p));
  }

  L2Location locate(std::uint64_t line) const {
    const std::uint64_t q = div_slices(line);
    const auto r = static_cast<std::uint32_t>(line - q * slices_);
    return {add_mod(r, slice_hash(q)), set_of(q)};
  }
  /// The line whose tag (see Cursor::tag) is `tag` in `set` of `slice`: locate's inverse.
  std::uint64_t line_of(std::uint32_t slice, std::uint32_t set, std::uint32_t tag) const {
    const std::uint32_t mask = (1u << set_bits_) - 1;
    const std::uint32_t ways = static_cast<std::uint32_t>(period_ >> set_bits_);
    const std::uint32_t low = hash_ ? set ^ (fold(tag % ways, set_bits_, set_chunks_) & mask) : set;
    const std::uint64_t q = (std::uint64_t{tag} << set_bits_) | low;
    const std::uint32_t h = slice_hash(q);
    return q * slices_ + (slice >= h ? slice - h : slice + slices_ - h);
  }
  /// Lines with a tag below this (L2Tags::kEmpty is never one).
  std::uint64_t line_limit() const {
    const std::uint64_t q = std::uint64_t{0xFFFFFFFF} << set_bits_;
    return q > ~std::uint64_t{0} / slices_ ? ~std::uint64_t{0} : q * slices_;
  }
  std::uint32_t slices() const { return slices_; }
  std::uint32_t sets_per_slice() const { return 1u << set_bits_; }

  /// How far a Cursor moves in one step of `lines` lines: lines = dq x slices + dr.
  struct Step {
    std::uint64_t lines, dq;
    std::uint32_t dr;
  };
  Step step(std::uint64_t lines) const {
    const std::uint64_t dq = div_slices(lines);
    return {lines, dq, static_cast<std::uint32_t>(lines - dq * slices_)};
  }

  /// Walks lines: one division at seek(), then increments (next() one line on, advance() a
  /// fixed step on, as from one row of a strided transfer to the next). It keeps copies of
  /// the map's constants, so a local Cursor lives in registers through a walk.
  class Cursor {
   public:
    explicit Cursor(const L2AddressMap& m)
        : m_(m),
          slices_(m.slices_),
          set_bits_(m.set_bits_),
          period_mask_(m.period_mask_),
          folds_(m.folds_.empty() || !m.period_mask_ ? nullptr : m.folds_.data()) {}
    void seek(std::uint64_t line) {
      q_ = m_.div_slices(line);
      r_ = static_cast<std::uint32_t>(line - q_ * slices_);
      refresh();
    }
    void next() {
      if (++r_ == slices_) {
        r_ = 0;
        ++q_;
        refresh();
      }
    }
    void advance(const Step& s) {
      r_ += s.dr;
      q_ += s.dq;
      if (r_ >= slices_) {
        r_ -= slices_;
        ++q_;
      }
      refresh();
    }
    std::uint32_t slice() const {
      const std::uint32_t s = r_ + qhash_;
      return s >= slices_ ? s - slices_ : s;
    }
    std::uint32_t set() const { return set_; }
    /// Tells the lines of one set apart: q / sets (lines a capacity apart differ by `ways`).
    std::uint32_t tag() const { return static_cast<std::uint32_t>(q_ >> set_bits_); }

   private:
    void refresh() {
      const std::uint32_t f = folds_ ? folds_[q_ & period_mask_] : m_.folds(q_);
      qhash_ = f >> 16;
      set_ = (static_cast<std::uint32_t>(q_) & ((1u << set_bits_) - 1)) ^ (f & 0xFFFF);
    }
    const L2AddressMap& m_;
    std::uint32_t slices_, set_bits_;
    std::uint64_t period_mask_;
    const std::uint32_t* folds_;  // the map's table when tabulated and a power of two long
    std::uint64_t q_ = 0;
    std::uint32_t r_ = 0, qhash_ = 0, set_ = 0;
  };

 private:
  static std::uint32_t log2(std::uint32_t v) {
    std::uint32_t b = 0;
    while ((1u << b) < v) ++b;
    return b;
  }
  /// line / slices without a 64-bit division (a walk seeks once per row): a double product,
  /// off by at most one below 2^52 lines, then corrected.
  std::uint64_t div_slices(std::uint64_t line) const {
    if (line >= (std::uint64_t{1} << 52)) return line / slices_;
    std::uint64_t q = static_cast<std::uint64_t>(static_cast<double>(line) * inv_slices_);
    const auto r = static_cast<std::int64_t>(line - q * slices_);
    if (r < 0)
      --q;
    else if (r >= static_cast<std::int64_t>(slices_))
      ++q;
    return q;
  }
  std::uint64_t mod_period(std::uint64_t q) const {
    return period_mask_ ? q & period_mask_ : q % period_;
  }
  /// Bits needed to write `v`.
  static std::uint32_t width(std::uint64_t v) {
    std::uint32_t b = 0;
    for (; v; v >>= 1) ++b;
    return b;
  }
  /// Chunks of `bits` bits in a value of `w` bits (none when bits is 0).
  static std::uint32_t chunks(std::uint32_t w, std::uint32_t bits) {
    return bits == 0 ? 0 : (w + bits - 1) / bits;
  }
  /// `x` (below 2^(n x bits)) XOR-folded to `bits` bits: its n chunks XORed, a loop of fixed
  /// length (no branch on the data).
  static std::uint32_t fold(std::uint64_t x, std::uint32_t bits, std::uint32_t n) {
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::uint64_t h = 0;
    for (std::uint32_t i = 0; i < n; ++i, x >>= bits) h ^= x & mask;
    return static_cast<std::uint32_t>(h);
  }
  std::uint32_t slice_hash(std::uint64_t q) const { return folds(q) >> 16; }
  std::uint32_t set_of(std::uint64_t q) const {
    return (static_cast<std::uint32_t>(q) & ((1u << set_bits_) - 1)) ^ (folds(q) & 0xFFFF);
  }
  /// Both hashes of q: slice hash (below slices) << 16 | set hash (below sets), from q modulo
  /// sets x ways; 0 without the hash.
  std::uint32_t fold_both(std::uint64_t p) const {
    if (!hash_) return 0;
    const std::uint32_t h = fold(p, slice_bits_, slice_chunks_);  // below 2^bits < 2 x slices
    const std::uint32_t s = fold(p >> set_bits_, set_bits_, set_chunks_);
    return (h >= slices_ ? h - slices_ : h) << 16 | s;
  }
  /// fold_both, tabulated when sets x ways is at most kTabulated (A100, H100: 4096 entries).
  std::uint32_t folds(std::uint64_t q) const {
    const std::uint64_t p = mod_period(q);
    return folds_.empty() ? fold_both(p) : folds_[p];
  }
  std::uint32_t add_mod(std::uint32_t r, std::uint32_t h) const {
    const std::uint32_t s = r + h;
    return s >= slices_ ? s - slices_ : s;
  }

  std::uint32_t slices_;
  std::uint32_t set_bits_;
  std::uint64_t period_;       // sets x ways: q's values within one capacity-sized block
  std::uint64_t period_mask_;  // period - 1 when a power of two, else 0
  double inv_slices_;
  std::uint32_t slice_bits_ = 0;
  std::uint32_t slice_chunks_ = 0, set_chunks_ = 0;  // chunks the two hashes fold
  static constexpr std::uint64_t kTabulated = 1 << 16;
  std::vector<std::uint32_t> folds_;  // fold_both of each q modulo sets x ways, when tabulated
  bool hash_;
};

}  // namespace systole::models
