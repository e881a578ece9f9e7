// The HBM address mapping for any channel count: the constant divider equals `/` and `%`;
// without hashing the mapping equals a plain mixed-radix reference (channel = block index mod
// C, the other fields from the quotient, in the configured order); with hashing it is still a
// bijection onto the capacity (round trips, an exhaustive count on a small memory, wrapping);
// the capacity is stacks x the capacity of a stack; and every channel gets its share of linear
// and strided streams within bounds stated here before they were measured.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "models/hbm/hbm_address_map.h"
#include "models/hbm/hbm_divider.h"

using namespace systole::models;
using systole::Bytes;

namespace {

/// A preset with `stacks` stacks and `rows` rows per bank (capacity = stacks x a stack's).
HbmConfig with(HbmPreset p, std::int64_t stacks, std::int64_t rows = 32768) {
  HbmConfig c = HbmConfig::from_preset(p);
  c.stacks = stacks;
  c.capacity = Bytes(static_cast<std::uint64_t>(c.total_channels() * c.pseudo_channels *
                                                c.banks_per_pc() * c.row_bytes() * rows));
  return c;
}

/// The mapping as the README states it, with `/` and `%`: the address modulo the capacity;
/// the interleave block's low column bits; then each field, LSB first in the configured order,
/// is the block index modulo its count, the rest of the index their quotient.
HbmAddress reference(const HbmConfig& c, std::uint64_t a) {
  std::vector<HbmAddressMap::Field> order;
  std::string why;
  REQUIRE(HbmAddressMap::parse_order(c.address_mapping, &order, &why));
  const auto il = static_cast<std::uint64_t>(c.interleave.value());
  const auto atom = static_cast<std::uint64_t>(c.atom_bytes());
  const auto cap = static_cast<std::uint64_t>(c.total_channels() * c.pseudo_channels *
                                              c.banks_per_pc() * c.rows() * c.row_bytes());
  a %= cap;
  std::uint64_t rest = a / il, co = 0;
  HbmAddress d;
  for (const auto f : order) {
    using F = HbmAddressMap::Field;
    const std::uint64_t n = f == F::kChannel         ? c.total_channels()
                            : f == F::kPseudoChannel ? c.pseudo_channels
                            : f == F::kBankGroup     ? c.bank_groups
                            : f == F::kBank          ? c.banks_per_group
                            : f == F::kColumn        ? c.columns / (il / atom)
                                                     : c.rows();
    const auto v = static_cast<std::uint32_t>(rest % n);
    rest /= n;
    (f == F::kChannel         ? d.channel
     : f == F::kPseudoChannel ? d.pc
     : f == F::kBankGroup     ? d.bg
     : f == F::kBank          ? d.bank
     : f == F::kColumn        ? d.col
                              : d.row) = v;
    if (f == F::kColumn) co = v;
  }
  d.col = static_cast<std::uint32_t>(co * (il / atom) + a % il / atom);
  return d;
}

bool same(const HbmAddress& x, const HbmAddress& y) {
  return x.channel == y.channel && x.pc == y.pc && x.bg == y.bg && x.bank == y.bank &&
         x.row == y.row && x.col == y.col;
}

bool in_range(const HbmConfig& c, const HbmAddress& d) {
  return d.channel < c.total_channels() && d.pc < c.pseudo_channels && d.bg < c.bank_groups &&
         d.bank < c.banks_per_group && d.row < c.rows() && d.col < c.columns;
}

/// Blocks of `n` accesses `pitch` bytes apart from `start`, counted per channel, over the share.
std::pair<double, double> spread(const HbmAddressMap& m, std::int64_t channels, std::uint64_t start,
                                 std::uint64_t pitch, std::uint64_t n) {
  std::vector<std::uint64_t> count(static_cast<std::size_t>(channels), 0);
  for (std::uint64_t i = 0; i < n; ++i) ++count[m.decode(start + i * pitch).channel];
  const double share = static_cast<double>(n) / static_cast<double>(channels);
  const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
  return {static_cast<double>(*lo) / share, static_cast<double>(*hi) / share};
}

}  // namespace

TEST_CASE("HBM constant divider equals / and % for every dividend tried", "[unit][hbm]") {
  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> divisors = {1,
                                         2,
                                         3,
                                         5,
                                         7,
                                         10,
                                         15,
                                         25,
                                         40,
                                         80,
                                         127,
                                         (1ull << 32) - 1,
                                         (1ull << 32) + 1,
                                         (1ull << 63) + 1,
                                         ~0ull,
                                         ~0ull - 1};
  for (int i = 0; i < 40; ++i) divisors.push_back(rng() >> (rng() % 64) | 1);
  for (const std::uint64_t d : divisors) {
    const ConstDivider div(d);
    std::vector<std::uint64_t> n = {0,
                                    1,
                                    d - 1,
                                    d,
                                    d + 1,
                                    2 * d - 1,
                                    ~0ull,
                                    ~0ull - 1,
                                    1ull << 63,
                                    (~0ull / d) * d,
                                    (~0ull / d) * d - 1};
    for (int i = 0; i < 2000; ++i) n.push_back(rng() >> (rng() % 64));
    for (const std::uint64_t x : n) {
      INFO(x << " / " << d);
      REQUIRE(div.quotient(x) == x / d);
      REQUIRE(div.remainder(x) == x % d);
    }
  }
}

TEST_CASE("HBM mapping without hashing equals the mixed-radix reference, any channel count",
          "[unit][hbm]") {
  std::mt19937_64 rng(5);
  const char* orders[] = {"ro_ba_co_bg_pc_ch", "ro_ch_ba_co_bg_pc", "ch_ro_ba_bg_co_pc",
                          "ro_ba_bg_ch_co_pc"};
  for (std::int64_t channels = 1; channels <= 20; ++channels) {
    for (const char* order : orders) {
      HbmConfig c = with(HbmPreset::kHbm2, 3, 64);
      c.channels = channels;  // 3 .. 60 channels: odd, even, powers of two
      c.capacity = Bytes(static_cast<std::uint64_t>(c.total_channels() * c.pseudo_channels *
                                                    c.banks_per_pc() * c.row_bytes() * 64));
      c.address_hash = AddressHash::kNone;
      c.address_mapping = order;
      c.interleave = Bytes(channels % 2 ? 64 : 256);
      const HbmAddressMap m(c);
      INFO(c.total_channels() << " channels, " << order);
      REQUIRE(m.capacity() == c.capacity.value());
      for (int i = 0; i < 3000; ++i) {
        const std::uint64_t a = rng() >> (rng() % 40);  // also far beyond the capacity
        INFO(a);
        REQUIRE(same(m.decode(a), reference(c, a)));
      }
    }
  }
}

TEST_CASE("HBM mapping is a bijection onto the capacity for any channel count", "[unit][hbm]") {
  std::mt19937_64 rng(9);
  for (const auto p : {HbmPreset::kHbm2, HbmPreset::kHbm3}) {
    for (std::int64_t stacks = 1; stacks <= 8; ++stacks) {
      for (const auto hash : {AddressHash::kXor, AddressHash::kMix, AddressHash::kNone}) {
        HbmConfig c = with(p, stacks);
        c.address_hash = hash;
        const HbmAddressMap m(c);
        INFO(hbm_preset_name(p) << " x " << stacks << " hash " << static_cast<int>(hash));
        // Capacity: stacks x the capacity of a stack, whatever the stack count.
        REQUIRE(m.capacity() == c.capacity.value());
        REQUIRE(m.capacity() == static_cast<std::uint64_t>(stacks) * (with(p, 1).capacity.value()));
        const std::uint64_t cap = m.capacity();
        for (int i = 0; i < 20000; ++i) {
          const std::uint64_t a = rng() % cap;
          const HbmAddress d = m.decode(a);
          INFO(a);
          REQUIRE(in_range(c, d));
          REQUIRE(m.encode(d) == (a & ~std::uint64_t{31}));          // 32-byte bursts
          REQUIRE(same(m.decode(a + (rng() % 1000 + 1) * cap), d));  // wraps at the capacity
        }
      }
    }
  }
  // Every burst of a small memory (5 stacks of HBM2, 4 rows per bank: 163,840 bursts of 32 B)
  // lands on its own (channel, pseudo-channel, bank group, bank, row, column).
  for (const char* order : {"ro_ba_co_bg_pc_ch", "ch_ro_ba_bg_co_pc", "ro_ba_ch_co_bg_pc"}) {
    HbmConfig c = with(HbmPreset::kHbm2, 5, 4);
    c.address_mapping = order;
    const HbmAddressMap m(c);
    INFO(order);
    const std::uint64_t bursts = m.capacity() / 32;
    std::vector<bool> seen(bursts, false);
    for (std::uint64_t b = 0; b < bursts; ++b) {
      const HbmAddress d = m.decode(b * 32);
      REQUIRE(in_range(c, d));
      const std::uint64_t key =
          ((((static_cast<std::uint64_t>(d.channel) * c.pseudo_channels + d.pc) * c.bank_groups +
             d.bg) *
                c.banks_per_group +
            d.bank) *
               c.rows() +
           d.row) *
              c.columns +
          d.col;
      REQUIRE_FALSE(seen[key]);
      seen[key] = true;
    }
  }
}

TEST_CASE("HBM mapping gives every channel its share of linear and strided streams",
          "[unit][hbm]") {
  // Bounds, stated before measuring:
  // * a linear stream of L interleave blocks, from anywhere: every channel within 2 blocks of
  //   L / C. With the channel the lowest field, C consecutive blocks with the same quotient map
  //   to C different channels (each hash permutes the channel for a fixed quotient), so a
  //   stream is whole groups plus a partial one at each end.
  // * strided streams of 256 x C accesses, pitch 2^j blocks or m x 2^j blocks (m the odd
  //   factor of C; a 10 KiB row pitch on 40 channels), while they stay inside the capacity:
  //   every channel within 25% of its share. The XOR fold of the channel's low bits spreads
  //   power-of-two pitches exactly; the rotation of the high digit is a multiplicative hash,
  //   which spreads like a random one: 256 expected accesses per channel have a binomial
  //   sigma of 6.25%, and 25% is four of them.
  std::mt19937_64 rng(3);
  double worst_lo = 1, worst_hi = 1;
  for (const auto p : {HbmPreset::kHbm2, HbmPreset::kHbm3}) {
    for (std::int64_t stacks = 1; stacks <= 8; ++stacks) {
      const HbmConfig c = with(p, stacks);
      const HbmAddressMap m(c);
      const std::int64_t ch = c.total_channels();
      const std::uint64_t odd = static_cast<std::uint64_t>(ch >> __builtin_ctzll(ch));
      INFO(hbm_preset_name(p) << " x " << stacks << ": " << ch << " channels");
      for (int i = 0; i < 8; ++i) {
        const std::uint64_t blocks = rng() % 100000 + 1, start = rng() % m.capacity() / 256;
        const auto [lo, hi] = spread(m, ch, start * 256, 256, blocks);
        const double share = static_cast<double>(blocks) / static_cast<double>(ch);
        CHECK(lo * share >= share - 2);
        CHECK(hi * share <= share + 2);
      }
      const std::uint64_t n = 256 * static_cast<std::uint64_t>(ch);
      for (const std::uint64_t factor : {std::uint64_t{1}, odd}) {
        for (std::uint64_t pitch = 256 * factor; pitch * n <= m.capacity(); pitch *= 2) {
          INFO("pitch " << pitch << " B");
          const auto [lo, hi] = spread(m, ch, 0, pitch, n);
          CHECK(lo >= 0.75);
          CHECK(hi <= 1.25);
          worst_lo = std::min(worst_lo, lo);
          worst_hi = std::max(worst_hi, hi);
        }
      }
    }
  }
  WARN("strided streams: every channel between " << worst_lo << " and " << worst_hi
                                                 << " of its share");
}

TEST_CASE("HBM address_hash: mix spreads a pitch of C blocks over both pseudo-channels",
          "[unit][hbm]") {
  // A tile column's rows at a pitch of a multiple of C interleave blocks (73,728 B = 9 x 32
  // blocks of 256 B on the TPU v4's 32 channels: a bf16 row of 36,864 columns). Under xor the
  // pseudo-channel's parity follows the channel's, so each channel sees one pseudo-channel;
  // under mix each channel sees both, about equally.
  for (const auto hash : {AddressHash::kXor, AddressHash::kMix}) {
    HbmConfig c = with(HbmPreset::kHbm2, 4);
    c.address_hash = hash;
    const HbmAddressMap m(c);
    std::vector<std::array<int, 2>> per(static_cast<std::size_t>(c.total_channels()), {0, 0});
    for (std::uint64_t r = 0; r < 4096; ++r)
      ++per[m.decode(r * 73728).channel][m.decode(r * 73728).pc];
    int both = 0, least = 4096;
    for (const auto& x : per)
      if (x[0] + x[1] > 0) {
        both += x[0] > 0 && x[1] > 0;
        least = std::min(least, std::min(x[0], x[1]) * 100 / (x[0] + x[1]));
      }
    INFO("hash " << static_cast<int>(hash) << ": channels using both " << both << ", least share "
                 << least << "%");
    if (hash == AddressHash::kXor) CHECK(both == 0);
    if (hash == AddressHash::kMix) CHECK(least >= 35);  // each within 35-65% of its channel
  }
}
