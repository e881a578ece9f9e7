#pragma once
// Fold-level timing of one systolic array (no SystemC). A matmul A[m x k] * W[k x n] is cut into
// folds: tiles of the stationary operand that fit the R x C array. Folds issue back to back:
// while one fold streams, the next fold's stationary tile shifts into the shadow registers
// (TPU weight double-buffering), so a fold occupies the array for max(T, R) cycles, T being
// the streamed length. The last result leaves the array R + C - 2 cycles after the last input.

#include <cstdint>

#include "models/mxu/mxu_config.h"
#include "sim/core/units.h"

namespace systole::models {

struct MatmulCost {
  std::uint64_t folds = 0;
  std::uint64_t macs = 0;
  Cycles occupancy{0};  ///< cycles the array accepts inputs for this matmul
  Cycles latency{0};    ///< pipeline fill/drain after the last input
  Cycles load{0};       ///< cycles to shift one stationary tile in (exposed when not overlapped)
  double mapping_efficiency = 0;  ///< PEs holding real data / PEs, averaged over folds
};

class MxuTiming {
 public:
  explicit MxuTiming(const MxuConfig& cfg) : cfg_(cfg) {}
  MatmulCost matmul(std::uint32_t m, std::uint32_t k, std::uint32_t n) const;
  std::uint64_t peak_macs_per_cycle() const {
    return static_cast<std::uint64_t>(cfg_.rows * cfg_.cols);
  }
  const MxuConfig& config() const { return cfg_; }

 private:
  MxuConfig cfg_;
};

}  // namespace systole::models
