#include "models/mxu/mxu_timing.h"

#include <algorithm>

namespace systole::models {

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
}  // namespace

MatmulCost MxuTiming::matmul(std::uint32_t m, std::uint32_t k, std::uint32_t n) const {
  const auto R = static_cast<std::uint64_t>(cfg_.rows);
  const auto C = static_cast<std::uint64_t>(cfg_.cols);
  // Spatial rows / spatial columns / streamed dimension of each dataflow.
  std::uint64_t sr = k, sc = n, t = m;
  switch (cfg_.dataflow) {
    case Dataflow::kWeightStationary:
      sr = k;
      sc = n;
      t = m;
      break;
    case Dataflow::kOutputStationary:
      sr = m;
      sc = n;
      t = k;
      break;
    case Dataflow::kInputStationary:
      sr = k;
      sc = m;
      t = n;
      break;
  }
  MatmulCost c;
  const std::uint64_t fr = ceil_div(sr, R), fc = ceil_div(sc, C);
  c.folds = fr * fc;
  c.macs = static_cast<std::uint64_t>(m) * k * n;
  c.occupancy = Cycles(c.folds * std::max(t, R));
  c.latency = Cycles(R + C - 2);
  c.load = Cycles(R);
  c.mapping_efficiency = (static_cast<double>(sr) / static_cast<double>(fr * R)) *
                         (static_cast<double>(sc) / static_cast<double>(fc * C));
  return c;
}

}  // namespace systole::models
