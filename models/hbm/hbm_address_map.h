#pragma once
// Physical address -> (channel, pseudo-channel, bank group, bank, row, column) by slicing
// address bits, Ramulator-style: the lowest log2(interleave) bits pick the byte and the low
// column bits (one interleave block stays on one channel and row), the fields above follow a
// configurable order. Addresses wrap at the capacity. Every field count is a power of two.
// With address_hash: xor, the channel and pseudo-channel fields are each XORed with the address
// bits above them, folded to their width (GPU memory partitions hash likewise), so a matrix's
// row pitch does not land on a few channels or one pseudo-channel. For fixed upper bits it
// permutes the field, so the capacity is unchanged.

#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_config.h"

namespace systole::models {

/// Where an address lives. `channel` counts over all stacks; `col` is the burst column.
struct HbmAddress {
  std::uint32_t channel = 0, pc = 0, bg = 0, bank = 0, row = 0, col = 0;
};

/// Bit-slicing address decoder (optional XOR hashing of the channel fields); exact, stateless.
class HbmAddressMap {
 public:
  enum class Field : std::uint8_t { kRow, kBank, kBankGroup, kColumn, kPseudoChannel, kChannel };

  explicit HbmAddressMap(const HbmConfig& cfg);

  /// Parses "ro_ba_co_bg_pc_ch" (MSB first) into fields listed LSB first. Returns false with
  /// `why` set when a field is unknown, repeated or missing.
  static bool parse_order(const std::string& text, std::vector<Field>* lsb_first, std::string* why);

  HbmAddress decode(std::uint64_t addr) const {
    const std::uint64_t a = addr & wrap_mask_;
    HbmAddress d;
    d.channel = extract(a, ch_) ^ hash(a, ch_);
    d.pc = extract(a, pc_) ^ hash(a, pc_);
    d.bg = extract(a, bg_);
    d.bank = extract(a, ba_);
    d.row = extract(a, ro_);
    d.col = (extract(a, co_) << col_low_bits_) | extract(a, col_low_);
    return d;
  }
  /// The lowest address of the burst at `d` (the inverse of decode, for tests).
  std::uint64_t encode(const HbmAddress& d) const;

  std::uint64_t capacity() const { return wrap_mask_ + 1; }
  std::uint32_t atom_bytes() const { return atom_; }
  std::uint32_t interleave() const { return interleave_; }

 private:
  struct Slice {
    std::uint32_t shift = 0, bits = 0;
    std::uint64_t mask = 0;
  };
  static std::uint32_t extract(std::uint64_t a, const Slice& s) {
    return static_cast<std::uint32_t>((a >> s.shift) & s.mask);
  }
  static std::uint64_t place(std::uint64_t v, const Slice& s) { return (v & s.mask) << s.shift; }
  /// The address bits above slice `s`, XOR-folded to its width (0 without hashing).
  std::uint32_t hash(std::uint64_t a, const Slice& s) const {
    if (!hash_ || s.bits == 0 || s.shift + s.bits >= 64) return 0;
    std::uint64_t x = a >> (s.shift + s.bits), h = 0;
    if (s.bits == 1) return static_cast<std::uint32_t>(__builtin_parityll(x));
    for (; x; x >>= s.bits) h ^= x;
    return static_cast<std::uint32_t>(h & s.mask);
  }

  std::uint64_t wrap_mask_ = 0;
  std::uint32_t atom_ = 0, interleave_ = 0, col_low_bits_ = 0;
  bool hash_ = false;
  Slice col_low_, ch_, pc_, bg_, ba_, ro_, co_;
};

}  // namespace systole::models
