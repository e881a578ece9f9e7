#include "models/sram/sram_layout.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/units.h"

namespace systole::models {

namespace {
std::string size_text(std::uint64_t b) {
  return b < 1024 ? fmt::format("{} B", b)
                  : format_quantity(static_cast<double>(b), Dimension::kBytes);
}
}  // namespace

SramLayout::SramLayout(std::string sram, std::uint64_t capacity, std::uint64_t align)
    : sram_(std::move(sram)), capacity_(capacity), align_(align ? align : 1) {}

std::size_t SramLayout::add(std::string name, std::uint64_t bytes, int copies) {
  const std::uint64_t stride = (bytes + align_ - 1) / align_ * align_;
  buffers_.push_back({std::move(name), bytes, stride, used_, copies});
  used_ += stride * static_cast<std::uint64_t>(copies);
  return buffers_.size() - 1;
}

std::uint64_t SramLayout::slot(std::size_t i, std::int64_t copy) const {
  const Buffer& b = buffers_.at(i);
  return b.base + static_cast<std::uint64_t>(copy % b.copies) * b.stride;
}

void SramLayout::check(const std::string& owner) const {
  if (used_ <= capacity_) return;
  std::string parts;
  for (const auto& b : buffers_)
    parts += fmt::format("{}{} {} x {}", parts.empty() ? "" : ", ", b.name, b.copies,
                         size_text(b.bytes));
  throw WorkloadError(fmt::format("{} does not fit {}: {} need {}, it has {}", owner, sram_, parts,
                                  size_text(used_), size_text(capacity_)));
}

}  // namespace systole::models
