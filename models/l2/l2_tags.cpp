#include "models/l2/l2_tags.h"

#include <algorithm>
#include <cstdint>

namespace systole::models {

L2Tags::L2Tags(std::uint32_t sets, std::uint32_t ways)
    : sets_(sets),
      ways_(ways),
      // tags, then four bytes a way, on whole 64-byte lines (16 ways: 64 + 64 bytes)
      block_words_((2 * ways + 15) / 16 * 16),
      store_(std::uint64_t{sets} * block_words_ + 32, 0),
      words_(std::uint64_t{sets} * ways, 0) {
  const auto addr = reinterpret_cast<std::uintptr_t>(store_.data());
  base_ = store_.data() + ((128 - addr % 128) % 128) / 4;
  way_mask_ = ways >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << ways) - 1;
  second_line_ = block_words_ > 16 ? 64 : 0;
  for (std::uint32_t s = 0; s < sets; ++s) {
    std::fill(block(s), block(s) + ways, kEmpty);
    for (std::uint32_t w = 0; w < ways; ++w) bytes(block(s))[w] = static_cast<std::uint8_t>(w);
  }
}

std::uint64_t L2Tags::occupied() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (std::uint32_t w = 0; w < ways_; ++w) n += block(s)[w] != kEmpty;
  return n;
}

std::uint64_t L2Tags::dirty_sectors() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (std::uint32_t w = 0; w < ways_; ++w)
      n += static_cast<std::uint64_t>(__builtin_popcount(bytes(block(s))[2 * ways_ + w]));
  return n;
}

}  // namespace systole::models
