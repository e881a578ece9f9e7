#include "models/l2/l2_tags.h"

#include <algorithm>
#include <cstdint>

namespace systole::models {

L2Tags::L2Tags(std::uint32_t sets, std::uint32_t ways)
    : sets_(sets),
      ways_(ways),
      // tags, then four bytes a way, then a spare word a way: each part on whole lines when
      // the tags fill whole lines (16 ways: 64 + 64 + 64 bytes)
      bytes_words_(ways),
      block_words_((ways + bytes_words_ + ways + 15) / 16 * 16),
      store_(std::uint64_t{sets} * block_words_ + 16, 0) {
  const auto addr = reinterpret_cast<std::uintptr_t>(store_.data());
  base_ = store_.data() + ((64 - addr % 64) % 64) / 4;
  way_mask_ = ways >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << ways) - 1;
  prefetch_[0] = std::min(64u, block_words_ * 4 - 64);
  prefetch_[1] = std::min(128u, block_words_ * 4 - 64);
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
