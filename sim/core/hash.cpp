#include "sim/core/hash.h"

namespace systole {

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;  // FNV-1a 64-bit prime
  }
  return h;
}

std::string hex_digits(std::uint64_t h, int digits) {
  static const char* const kHex = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = kHex[h & 0xf];
  if (digits < 1) digits = 1;
  if (digits > 16) digits = 16;
  return out.substr(0, static_cast<size_t>(digits));
}

std::string short_hash(std::string_view text) { return hex_digits(fnv1a64(text), 12); }

}  // namespace systole
