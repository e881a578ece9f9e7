#include "models/hbm/hbm_address_map.h"

#include <algorithm>

#include "sim/core/error.h"

namespace systole::models {

namespace {

std::uint32_t log2_exact(std::uint64_t v) {
  std::uint32_t b = 0;
  while ((std::uint64_t{1} << b) < v) ++b;
  return b;
}

struct Name {
  const char* text;
  HbmAddressMap::Field field;
};
constexpr Name kNames[] = {
    {"ro", HbmAddressMap::Field::kRow},           {"ba", HbmAddressMap::Field::kBank},
    {"bg", HbmAddressMap::Field::kBankGroup},     {"co", HbmAddressMap::Field::kColumn},
    {"pc", HbmAddressMap::Field::kPseudoChannel}, {"ch", HbmAddressMap::Field::kChannel},
};

}  // namespace

bool HbmAddressMap::parse_order(const std::string& text, std::vector<Field>* lsb_first,
                                std::string* why) {
  std::vector<Field> msb_first;
  std::vector<std::string> seen;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('_', pos), text.size());
    const std::string tok = text.substr(pos, end - pos);
    const Name* hit = nullptr;
    for (const auto& n : kNames)
      if (tok == n.text) hit = &n;
    if (!hit) {
      *why = "unknown field '" + tok + "' in '" + text +
             "': expected each of ro, ba, bg, co, pc, ch once, separated by _ (MSB first)";
      return false;
    }
    if (std::find(seen.begin(), seen.end(), tok) != seen.end()) {
      *why = "field '" + tok + "' appears twice in '" + text + "'";
      return false;
    }
    seen.push_back(tok);
    msb_first.push_back(hit->field);
    pos = end + 1;
  }
  if (msb_first.size() != std::size(kNames)) {
    std::string missing;
    for (const auto& n : kNames)
      if (std::find(seen.begin(), seen.end(), n.text) == seen.end())
        missing += std::string(missing.empty() ? "" : ", ") + n.text;
    *why = "'" + text + "' lacks " + missing + ": expected each of ro, ba, bg, co, pc, ch once";
    return false;
  }
  if (lsb_first) lsb_first->assign(msb_first.rbegin(), msb_first.rend());
  return true;
}

HbmAddressMap::HbmAddressMap(const HbmConfig& cfg) {
  std::vector<Field> order;
  std::string why;
  if (!parse_order(cfg.address_mapping, &order, &why)) throw SimError("hbm: " + why);
  atom_ = static_cast<std::uint32_t>(cfg.atom_bytes());
  interleave_ = static_cast<std::uint32_t>(cfg.interleave.value());
  const std::uint32_t atom_bits = log2_exact(atom_);
  col_low_bits_ = log2_exact(interleave_) - atom_bits;
  const std::uint32_t col_bits = log2_exact(static_cast<std::uint64_t>(cfg.columns));
  SYSTOLE_ASSERT(col_low_bits_ <= col_bits, "hbm interleave larger than a row");
  col_low_ = {atom_bits, col_low_bits_, (std::uint64_t{1} << col_low_bits_) - 1};
  std::uint32_t shift = atom_bits + col_low_bits_;
  const auto channels = static_cast<std::uint64_t>(cfg.total_channels());
  SYSTOLE_ASSERT(channels > 0, "hbm without channels");
  for (Field f : order) {
    std::uint32_t bits = 0;
    Slice* s = nullptr;
    switch (f) {
      case Field::kRow:
        bits = log2_exact(static_cast<std::uint64_t>(cfg.rows()));
        s = &ro_;
        break;
      case Field::kBank:
        bits = log2_exact(static_cast<std::uint64_t>(cfg.banks_per_group));
        s = &ba_;
        break;
      case Field::kBankGroup:
        bits = log2_exact(static_cast<std::uint64_t>(cfg.bank_groups));
        s = &bg_;
        break;
      case Field::kColumn:
        bits = col_bits - col_low_bits_;
        s = &co_;
        break;
      case Field::kPseudoChannel:
        bits = log2_exact(static_cast<std::uint64_t>(cfg.pseudo_channels));
        s = &pc_;
        break;
      case Field::kChannel:  // the low bits; the odd factor is a modulo (see decode)
        bits = static_cast<std::uint32_t>(__builtin_ctzll(channels));
        s = &ch_;
        break;
    }
    *s = {shift, bits, (std::uint64_t{1} << bits) - 1};
    shift += bits;
  }
  odd_ = static_cast<std::uint32_t>(channels >> ch_.bits);
  SYSTOLE_ASSERT(shift + log2_exact(odd_) < 64, "hbm address wider than 64 bits");
  wrap_mask_ = (std::uint64_t{1} << shift) - 1;
  split_ = ch_.shift + ch_.bits;
  low_mask_ = (std::uint64_t{1} << split_) - 1;
  div_ = ConstDivider(odd_);
  hash_ = cfg.address_hash != AddressHash::kNone;
  mix_ = cfg.address_hash == AddressHash::kMix;
}

HbmAddress HbmAddressMap::decode_odd(std::uint64_t addr) const {
  // Above the channel's low bits: quotient and remainder by the channel count's odd factor.
  const std::uint64_t above = addr >> split_;
  const std::uint64_t q = div_.quotient(above);
  const auto r = static_cast<std::uint32_t>(above - q * odd_);
  // The quotient stands where the bits above stood: a power-of-two layout, sliced as usual.
  const std::uint64_t v = ((q << split_) | (addr & low_mask_)) & wrap_mask_;
  HbmAddress d = slice(v);
  d.channel |= high_digit(r, v >> split_) << ch_.bits;
  return d;
}

std::uint64_t HbmAddressMap::encode(const HbmAddress& d) const {
  if (odd_ == 1) return encode_sliced(d);
  HbmAddress low = d;
  low.channel = d.channel & static_cast<std::uint32_t>(ch_.mask);
  const std::uint64_t v = encode_sliced(low);
  // Invert high_digit: the remainder that, with this quotient, gives the channel's high digit.
  const std::uint64_t q = v >> split_;
  std::uint32_t r = d.channel >> ch_.bits;
  if (hash_) r = (r + odd_ - static_cast<std::uint32_t>(div_.remainder(rotation(q)))) % odd_;
  return ((q * odd_ + r) << split_) | (v & low_mask_);
}

std::uint64_t HbmAddressMap::encode_sliced(const HbmAddress& d) const {
  std::uint64_t a = place(d.row, ro_) | place(d.bank, ba_) | place(d.bg, bg_) |
                    place(d.col >> col_low_bits_, co_) | place(d.col, col_low_);
  // The hashed fields, highest first: each one's hash reads only the bits above it.
  struct H {
    const Slice* s;
    std::uint32_t v;
  };
  H h[] = {{&ch_, d.channel}, {&pc_, d.pc}};
  std::sort(std::begin(h), std::end(h),
            [](const H& x, const H& y) { return x.s->shift > y.s->shift; });
  for (const H& f : h) a |= place(f.v ^ (f.s == &pc_ ? pc_hash(a) : hash(a, *f.s)), *f.s);
  return a;
}

}  // namespace systole::models
