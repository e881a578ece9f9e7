#include "models/sram/sram_timing.h"

#include <algorithm>
#include <cmath>

namespace systole::models {

SramTiming::SramTiming(const SramConfig& cfg, BytesPerSecond peak)
    : cfg_(cfg),
      access_ps_(cfg.access_seconds(peak) * 1e12),
      ports_(static_cast<std::size_t>(cfg.banks * cfg.ports)) {}

std::vector<std::uint64_t> SramTiming::per_bank(const DmaDescriptor& d) const {
  const auto banks = static_cast<std::uint64_t>(cfg_.banks);
  const std::uint64_t w = cfg_.width.value();
  std::vector<std::uint64_t> n(banks, 0);
  if (d.row_bytes == 0) return n;
  // Each row covers words [first, last]: full turns of the bank stripe add to every bank, the
  // rest to a run of banks from first % banks (wrapping), counted as +1 / -1 at the run's ends
  // of a difference array (one pass over the banks at the end instead of one per row).
  std::vector<std::int64_t> diff(banks + 1, 0);
  std::uint64_t turns = 0;
  auto row = [&](std::uint64_t addr) {
    const std::uint64_t first = addr / w, last = (addr + d.row_bytes - 1) / w;
    const std::uint64_t words = last - first + 1, rest = words % banks;
    turns += words / banks;
    const std::uint64_t b0 = first % banks, b1 = b0 + rest;  // run [b0, b1), may wrap
    if (b1 <= banks) {
      ++diff[b0];
      --diff[b1];
    } else {
      ++diff[b0];
      --diff[banks];
      ++diff[0];
      --diff[b1 - banks];
    }
  };
  for (std::uint64_t k = 0; k < d.dims[2].count; ++k)
    for (std::uint64_t j = 0; j < d.dims[1].count; ++j)
      for (std::uint64_t i = 0; i < d.dims[0].count; ++i)
        row(d.addr + i * d.dims[0].stride + j * d.dims[1].stride + k * d.dims[2].stride);
  std::int64_t run = 0;
  for (std::uint64_t b = 0; b < banks; ++b) {
    run += diff[b];
    n[b] = turns + static_cast<std::uint64_t>(run);
  }
  return n;
}

SramGrant SramTiming::access(double now_ps, const DmaDescriptor& d, bool write) {
  (write ? written_ : read_) += d.bytes();
  const std::vector<std::uint64_t> n = per_bank(d);
  const auto ports = static_cast<std::size_t>(cfg_.ports);
  SramGrant g{now_ps, now_ps, 0};
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < n.size(); ++b) {
    total += n[b];
    if (!n[b]) continue;
    // The bank's ports take its accesses round robin: each port serves its share in a row.
    for (std::size_t p = 0; p < ports; ++p) {
      const std::uint64_t share = n[b] / ports + (p < n[b] % ports ? 1 : 0);
      if (!share) continue;
      const double end =
          ports_[b * ports + p].serve(now_ps, static_cast<double>(share) * access_ps_).end;
      g.end_ps = std::max(g.end_ps, end);
    }
  }
  g.ideal_ps =
      std::ceil(static_cast<double>(total) / static_cast<double>(ports_.size())) * access_ps_;
  conflict_ps_ += std::max(0.0, g.end_ps - now_ps - g.ideal_ps);
  busy_ps_ += std::max(0.0, g.end_ps - std::max(now_ps, busy_until_));
  busy_until_ = std::max(busy_until_, g.end_ps);
  return g;
}

}  // namespace systole::models
