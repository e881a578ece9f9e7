#pragma once
// Division of 64-bit unsigned integers by a divisor fixed at construction, with a multiply, a
// subtract, an add and two shifts instead of a hardware divide: Granlund & Montgomery,
// "Division by Invariant Integers using Multiplication", PLDI 1994, Figure 4.1 (the unsigned
// N-bit case with an N-bit multiplier and the round-down correction), exact for every dividend.
// The HBM address mapping divides each request's block index by the odd factor of a channel
// count that is not a power of two (models/hbm/hbm_address_map.h) on the per-request path.

#include <cstdint>

namespace systole::models {

/// floor(n / d) and n mod d for any 64-bit n and a fixed divisor d >= 1; exact, stateless.
class ConstDivider {
 public:
  explicit ConstDivider(std::uint64_t d = 1) : d_(d == 0 ? 1 : d) {
    std::uint32_t l = 0;  // ceil(log2 d): 2^(l-1) < d <= 2^l
    while (l < 64 && (std::uint64_t{1} << l) < d_) ++l;
    // magic = floor(2^64 (2^l - d) / d) + 1, which fits 64 bits because 2^l - d < d.
    const U128 two_l = static_cast<U128>(1) << l;
    magic_ = static_cast<std::uint64_t>(((two_l - d_) << 64) / d_ + 1);
    shift1_ = l < 1 ? l : 1;
    shift2_ = l > 1 ? l - 1 : 0;
  }

  std::uint64_t divisor() const { return d_; }
  std::uint64_t quotient(std::uint64_t n) const {
    const auto t = static_cast<std::uint64_t>((static_cast<U128>(magic_) * n) >> 64);
    return (t + ((n - t) >> shift1_)) >> shift2_;
  }
  std::uint64_t remainder(std::uint64_t n) const { return n - quotient(n) * d_; }

 private:
  __extension__ typedef unsigned __int128 U128;  // GCC/Clang; -Wpedantic accepts __extension__

  std::uint64_t d_ = 1, magic_ = 0;
  std::uint32_t shift1_ = 0, shift2_ = 0;
};

}  // namespace systole::models
