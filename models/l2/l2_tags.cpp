#include "models/l2/l2_tags.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace systole::models {

L2Tags::L2Tags(std::uint32_t sets, std::uint32_t ways)
    : sets_(sets),
      ways_(ways),
      order_(4 * ways),
      valid_(order_ + (ways <= 16 ? 8 : ways)),
      // whole 64-byte lines (16 ways: 64 bytes of tags, 8 of order, 48 of bits: two lines)
      block_words_((valid_ + 3 * ways + 63) / 64 * 16),
      store_(std::uint64_t{sets} * block_words_ + 32, 0),
      words_(std::uint64_t{sets} * ways, 0) {
  const auto addr = reinterpret_cast<std::uintptr_t>(store_.data());
  base_ = store_.data() + ((128 - addr % 128) % 128) / 4;
  way_mask_ = ways >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << ways) - 1;
  second_line_ = block_words_ > 16 ? 64 : 0;
  // Every way empty; the order 0, 1, .. ways - 1 (empty ways are taken from the last place).
  for (std::uint32_t s = 0; s < sets; ++s) {
    std::uint32_t* b = block(s);
    std::fill(b, b + ways, kEmpty);
    auto* order = reinterpret_cast<std::uint8_t*>(b) + order_;
    if (ways <= 16) {
      std::uint64_t o = 0;
      for (std::uint64_t w = 0; w < ways; ++w) o |= w << (4 * w);
      std::memcpy(order, &o, sizeof o);
    } else {
      for (std::uint32_t w = 0; w < ways; ++w) order[w] = static_cast<std::uint8_t>(w);
    }
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
      n += static_cast<std::uint64_t>(__builtin_popcount(bytes(block(s))[valid_ + ways_ + w]));
  return n;
}

}  // namespace systole::models
