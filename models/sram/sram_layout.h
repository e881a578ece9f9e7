#pragma once
// Buffers placed in an on-chip SRAM: each buffer has `copies` slots (2 = double-buffered: one is
// filled while the other is read), placed one after another and aligned to the bank stripe, so
// every slot starts on bank 0. A layout that does not fit is a WorkloadError naming the owner
// (e.g. the layer) and every size.

#include <cstdint>
#include <string>
#include <vector>

namespace systole::models {

/// Places double-buffered tiles in an SRAM and checks that they fit.
class SramLayout {
 public:
  /// `align`: the bank stripe (banks x width), or any alignment the owner wants.
  SramLayout(std::string sram, std::uint64_t capacity, std::uint64_t align);
  /// Adds a buffer of `copies` slots of `bytes`; returns its index.
  std::size_t add(std::string name, std::uint64_t bytes, int copies);
  /// Address of slot `copy` of buffer `i` (copies cycle: copy 2 is slot 0 again).
  std::uint64_t slot(std::size_t i, std::int64_t copy) const;
  /// Bytes of one slot of buffer `i`.
  std::uint64_t bytes(std::size_t i) const { return buffers_.at(i).bytes; }
  std::uint64_t used() const { return used_; }
  /// Throws WorkloadError "<owner> does not fit <sram>: <buffers> need <used>, it has <cap>".
  void check(const std::string& owner) const;

 private:
  struct Buffer {
    std::string name;
    std::uint64_t bytes, stride, base;
    int copies;
  };
  std::string sram_;
  std::uint64_t capacity_, align_, used_ = 0;
  std::vector<Buffer> buffers_;
};

}  // namespace systole::models
