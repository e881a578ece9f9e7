#include "models/vector/vector_timing.h"

#include <cmath>

namespace systole::models {

std::uint64_t VectorTiming::occupancy(std::uint64_t elements, double ops_per_element) const {
  const double lane_ops = static_cast<double>(elements) * ops_per_element;
  return static_cast<std::uint64_t>(std::ceil(lane_ops / static_cast<double>(cfg_.lanes)));
}

}  // namespace systole::models
