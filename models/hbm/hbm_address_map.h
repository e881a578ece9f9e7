#pragma once
// Physical address -> (channel, pseudo-channel, bank group, bank, row, column) by slicing
// address bits, Ramulator-style, for any channel count: the lowest log2(interleave) bits pick
// the byte and the low column bits (one interleave block stays on one channel and row), the
// fields above follow a configurable order. Every field count but the channel count is a power
// of two. A channel count C = 2^k x m (m odd) gets k bits of the channel field; where m > 1 the
// address bits above those are divided by m: the remainder is the channel's high digit and the
// quotient stands where those bits stood (GPGPU-Sim's mapping for channel counts that are not
// powers of two, src/gpgpu-sim/addrdec.cc: the channel is the block index modulo C, the other
// fields come from the quotient). m = 1 is plain bit slicing. Addresses wrap at the capacity.
// With address_hash: xor, the channel's k bits and the pseudo-channel field are each XORed with
// the address bits above them (for the channel, the quotient), folded to their width (GPU
// memory partitions hash likewise), so a matrix's row pitch does not land on a few channels or
// one pseudo-channel; the high digit is rotated (mod m) by a hash of the quotient that mixes
// every bit (MurmurHash3's 64-bit finalizer, Appleby, aappleby/smhasher), so pitches that are
// multiples of m blocks (a 10 KiB row on 40 channels) spread over it too, and strided streams
// spread over the channels as under a random hash. ASSUMPTION: NVIDIA's partition hash for 40
// or 80 channels is unpublished (a multiplicative Fibonacci hash, tried first, left 56 channels
// 30% apart on power-of-two pitches: too regular). For fixed upper bits each hash permutes its
// field, so the mapping stays a bijection onto the capacity.

#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_divider.h"

namespace systole::models {

/// Where an address lives. `channel` counts over all stacks; `col` is the burst column.
struct HbmAddress {
  std::uint32_t channel = 0, pc = 0, bg = 0, bank = 0, row = 0, col = 0;
};

/// Bit-slicing address decoder for any channel count (a modulo for the channel count's odd
/// factor; optional hashing of the channel fields); exact, stateless.
class HbmAddressMap {
 public:
  enum class Field : std::uint8_t { kRow, kBank, kBankGroup, kColumn, kPseudoChannel, kChannel };

  explicit HbmAddressMap(const HbmConfig& cfg);

  /// Parses "ro_ba_co_bg_pc_ch" (MSB first) into fields listed LSB first. Returns false with
  /// `why` set when a field is unknown, repeated or missing.
  static bool parse_order(const std::string& text, std::vector<Field>* lsb_first, std::string* why);

  HbmAddress decode(std::uint64_t addr) const {
    if (odd_ == 1) return slice(addr & wrap_mask_);  // a power-of-two channel count
    return decode_odd(addr);
  }
  /// The lowest address of the burst at `d` (the inverse of decode, for tests).
  std::uint64_t encode(const HbmAddress& d) const;

  /// channels x pseudo-channels x banks x rows x row bytes.
  std::uint64_t capacity() const { return (wrap_mask_ + 1) * odd_; }
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
  /// The pseudo-channel's hash: the XOR fold, or with address_hash: mix the low bits of a
  /// mixing hash of the bits above it (the fold's parity equals the channel fold's, which ties
  /// the pseudo-channel to the channel on pitches of a multiple of C blocks).
  std::uint32_t pc_hash(std::uint64_t a) const {
    if (!mix_ || pc_.bits == 0 || pc_.shift + pc_.bits >= 64) return hash(a, pc_);
    return static_cast<std::uint32_t>(rotation(a >> (pc_.shift + pc_.bits)) & pc_.mask);
  }
  /// Fields of `a`, an address below the power-of-two layout's capacity; the channel's low bits.
  HbmAddress slice(std::uint64_t a) const {
    HbmAddress d;
    d.channel = extract(a, ch_) ^ hash(a, ch_);
    d.pc = extract(a, pc_) ^ pc_hash(a);
    d.bg = extract(a, bg_);
    d.bank = extract(a, ba_);
    d.row = extract(a, ro_);
    d.col = (extract(a, co_) << col_low_bits_) | extract(a, col_low_);
    return d;
  }
  /// The channel's high digit from remainder `r` and quotient `q`: r, hashed r + rotation(q)
  /// mod m.
  std::uint32_t high_digit(std::uint32_t r, std::uint64_t q) const {
    if (!hash_) return r;
    const auto s = r + static_cast<std::uint32_t>(div_.remainder(rotation(q)));
    return s >= odd_ ? s - odd_ : s;
  }
  /// A hash of the quotient: MurmurHash3's fmix64 (every input bit flips each output bit with
  /// probability ~1/2).
  static std::uint64_t rotation(std::uint64_t q) {
    q ^= q >> 33;
    q *= 0xff51afd7ed558ccdull;
    q ^= q >> 33;
    return q;
  }
  /// decode() for a channel count with an odd factor m > 1 (out of line: the power-of-two
  /// path stays as small as it was).
  [[gnu::noinline]] HbmAddress decode_odd(std::uint64_t addr) const;
  /// The power-of-two layout's address of `d` (the channel's low bits only).
  std::uint64_t encode_sliced(const HbmAddress& d) const;

  std::uint64_t wrap_mask_ = 0;  // the power-of-two layout's capacity - 1
  std::uint64_t low_mask_ = 0;   // the bits below split_
  std::uint32_t atom_ = 0, interleave_ = 0, col_low_bits_ = 0;
  std::uint32_t odd_ = 1;    // m: the channel count's odd factor
  std::uint32_t split_ = 0;  // where the channel's low bits end
  ConstDivider div_;         // by odd_
  bool hash_ = false;
  bool mix_ = false;  // address_hash: mix (the pseudo-channel's hash)
  Slice col_low_, ch_, pc_, bg_, ba_, ro_, co_;
};

}  // namespace systole::models
