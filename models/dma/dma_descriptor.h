#pragma once
// A strided multi-dimensional transfer: `row_bytes` contiguous bytes from `addr`, repeated over
// up to three outer loops (innermost first), each with a count and a byte stride. A 2-D tile
// of a row-major matrix is one row per tile row with the matrix's row pitch as the stride.

#include <array>
#include <cstdint>

namespace systole::models {

struct DmaDim {
  std::uint64_t count = 1;
  std::uint64_t stride = 0;  ///< bytes between consecutive iterations
};

/// A strided transfer: contiguous rows of row_bytes over up to three outer loops.
struct DmaDescriptor {
  std::uint64_t addr = 0;
  std::uint64_t row_bytes = 0;
  std::array<DmaDim, 3> dims{};

  std::uint64_t rows() const { return dims[0].count * dims[1].count * dims[2].count; }
  std::uint64_t bytes() const { return rows() * row_bytes; }
  /// Rows are back to back: the transfer is one contiguous range.
  bool contiguous() const {
    return rows() == 1 || (dims[1].count == 1 && dims[2].count == 1 && dims[0].stride == row_bytes);
  }

  static DmaDescriptor linear(std::uint64_t addr, std::uint64_t bytes) {
    DmaDescriptor d;
    d.addr = addr;
    d.row_bytes = bytes;
    return d;
  }
  static DmaDescriptor strided(std::uint64_t addr, std::uint64_t rows, std::uint64_t row_bytes,
                               std::uint64_t stride) {
    DmaDescriptor d;
    d.addr = addr;
    d.row_bytes = row_bytes;
    d.dims[0] = {rows, stride};
    return d;
  }
};

}  // namespace systole::models
