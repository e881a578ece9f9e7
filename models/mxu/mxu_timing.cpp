#include "models/mxu/mxu_timing.h"

#include <algorithm>

#include "sim/core/error.h"

namespace systole::models {

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
}  // namespace

OpSchedule OpSchedule::shifted(std::uint64_t d) const {
  OpSchedule s = *this;
  s.start += d;
  s.first_stream += d;
  s.last_fold += d;
  s.stream_end += d;
  s.end += d;
  return s;
}

FoldPlan MxuTiming::plan(std::uint32_t m, std::uint32_t k, std::uint32_t n) const {
  const auto R = static_cast<std::uint64_t>(cfg_.rows);
  const auto C = static_cast<std::uint64_t>(cfg_.cols);
  FoldPlan p;
  switch (cfg_.dataflow) {
    case Dataflow::kWeightStationary:  // W[k x n] stays; rows of A stream
      p.rows = k;
      p.cols = n;
      p.t = m;
      break;
    case Dataflow::kOutputStationary:  // C[m x n] stays; A and W stream k steps
      p.rows = m;
      p.cols = n;
      p.t = k;
      break;
    case Dataflow::kInputStationary:  // A^T[k x m] stays; columns of W stream
      p.rows = k;
      p.cols = m;
      p.t = n;
      break;
  }
  p.row_folds = ceil_div(p.rows, R);
  p.col_folds = ceil_div(p.cols, C);
  p.folds = p.row_folds * p.col_folds;
  p.last_cols = p.cols - (p.col_folds - 1) * C;
  return p;
}

MatmulCost MxuTiming::matmul(std::uint32_t m, std::uint32_t k, std::uint32_t n) const {
  const auto R = static_cast<std::uint64_t>(cfg_.rows);
  const auto C = static_cast<std::uint64_t>(cfg_.cols);
  const FoldPlan p = plan(m, k, n);
  MxuPipeline idle(cfg_);
  const OpSchedule s = idle.plan(m, k, n, 0);
  MatmulCost c;
  c.folds = p.folds;
  c.macs = static_cast<std::uint64_t>(m) * k * n;
  c.load = Cycles(s.first_stream - s.start);
  c.occupancy = Cycles(p.folds * std::max(p.t, R));
  c.total = Cycles(s.end - s.start);
  c.latency = Cycles(c.total.value() - c.load.value() - c.occupancy.value());
  c.mapping_efficiency = (static_cast<double>(p.rows) / static_cast<double>(p.row_folds * R)) *
                         (static_cast<double>(p.cols) / static_cast<double>(p.col_folds * C));
  const std::uint64_t mk = static_cast<std::uint64_t>(m) * k,
                      kn = static_cast<std::uint64_t>(k) * n;
  switch (cfg_.dataflow) {
    case Dataflow::kWeightStationary:
      c.vmem_elements = p.col_folds * mk + kn;
      c.accumulator_rows = static_cast<std::uint64_t>(m) * p.col_folds;
      break;
    case Dataflow::kOutputStationary:
      c.vmem_elements = p.col_folds * mk + p.row_folds * kn;
      c.accumulator_rows = static_cast<std::uint64_t>(m) * p.col_folds;
      break;
    case Dataflow::kInputStationary:
      c.vmem_elements = mk + p.col_folds * kn;
      c.accumulator_rows = static_cast<std::uint64_t>(n) * p.col_folds;
      break;
  }
  return c;
}

// The rules below are derived in README.md ("PE-level semantics") from the PE-level reference;
// f = cycle the first vector of a fold enters, l = cycle its last vector enters.
OpSchedule MxuPipeline::plan(std::uint32_t m, std::uint32_t k, std::uint32_t n,
                             std::uint64_t ready) const {
  const MxuConfig& cfg = timing_.config();
  const auto R = static_cast<std::uint64_t>(cfg.rows);
  const auto C = static_cast<std::uint64_t>(cfg.cols);
  SYSTOLE_ASSERT(m > 0 && k > 0 && n > 0, "empty matmul");
  const FoldPlan p = timing_.plan(m, k, n);
  const std::uint64_t T = p.t, F = p.folds, step = std::max(T, R);
  OpSchedule s;
  s.ready = ready;
  s.folds = F;
  s.streaming = F * T;
  if (cfg.dataflow == Dataflow::kOutputStationary) {
    // Fold 0 streams once the port is free; its last vector waits until the previous fold's
    // results have left the output registers (released R cycles after that fold's last vector).
    const std::uint64_t f0 = has_prev_ ? std::max(ready, stream_end_) : ready;
    const std::uint64_t l0 = has_prev_ ? std::max(f0 + T - 1, stream_end_ - 1 + R) : f0 + T - 1;
    const std::uint64_t l_last = l0 + (F - 1) * step;
    // With T = 1 a fold's first vector is its last one, so it waits as well.
    s.start = s.first_stream = T == 1 ? l0 : f0;
    s.last_fold = T == 1 ? l_last : F > 1 ? l_last - step + 1 : f0;
    s.stream_end = l_last + 1;
    // A fold's results are released R cycles after its last vector; column j drains R values
    // from cycle release + j, row 0 last. The op ends when the later of its last fold and of
    // the last full-width fold (one column block earlier) has drained.
    s.end = l_last + 2 * R + p.last_cols - 1;
    if (p.col_folds > 1) s.end = std::max(s.end, l_last - p.row_folds * step + 2 * R + C - 1);
  } else {
    // The tile of fold g may shift in once fold g-1 started streaming (its tile moved from the
    // shadow registers to the PEs); fold g streams R cycles after its load began, once the port
    // is free.
    const std::uint64_t load = has_prev_ ? std::max(ready, last_fold_) : ready;
    const std::uint64_t f0 = has_prev_ ? std::max(load + R, stream_end_) : load + R;
    const std::uint64_t f_last = f0 + (F - 1) * step;
    s.start = load;
    s.first_stream = f0;
    s.last_fold = f_last;
    s.stream_end = f_last + T;
    // A fold's last vector reaches the bottom row R - 1 cycles after entering, column n_f - 1
    // another n_f - 1 cycles later. The op ends when the later of its last fold and of the last
    // full-width fold (one column block earlier) has drained.
    s.end = f_last + T + R + p.last_cols - 2;
    if (p.col_folds > 1) s.end = std::max(s.end, f_last - p.row_folds * step + T + R + C - 2);
  }
  return s;
}

void MxuPipeline::commit(const OpSchedule& s) {
  has_prev_ = true;
  last_fold_ = s.last_fold;
  stream_end_ = s.stream_end;
}

}  // namespace systole::models
