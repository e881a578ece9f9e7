#pragma once
// Throughput timing of the vector unit (no SystemC): an op over E elements that needs `ops`
// lane operations per element occupies the unit for ceil(E x ops / lanes) cycles and its
// results are out `latency` cycles after the last issue.

#include <cstdint>

#include "models/vector/vector_config.h"

namespace systole::models {

class VectorTiming {
 public:
  explicit VectorTiming(const VectorConfig& cfg) : cfg_(cfg) {}
  std::uint64_t occupancy(std::uint64_t elements, double ops_per_element) const;
  std::uint64_t latency() const { return static_cast<std::uint64_t>(cfg_.latency); }

 private:
  VectorConfig cfg_;
};

}  // namespace systole::models
