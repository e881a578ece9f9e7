#pragma once
// Stable hashes for identities that must read the same on every machine and in every run:
// design point ids, config and experiment fingerprints (results files, --resume, merge).

#include <cstdint>
#include <string>
#include <string_view>

namespace systole {

/// 64-bit FNV-1a (Fowler, Noll, Vo; the offset basis and prime of the FNV reference,
/// http://www.isthe.com/chongo/tech/comp/fnv/). Byte-wise, so independent of the platform.
std::uint64_t fnv1a64(std::string_view text);

/// The first `digits` (1..16) lowercase hex digits of `h`: "3fa9c01e2b7d".
std::string hex_digits(std::uint64_t h, int digits);

/// A short stable fingerprint of `text`: 12 hex digits (48 bits) of its FNV-1a hash.
std::string short_hash(std::string_view text);

}  // namespace systole
