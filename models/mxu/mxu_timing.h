#pragma once
// Fold-level timing of one R x C systolic array (no SystemC): the default MXU model. It gives
// the same cycle numbers as the PE-level reference (pe_array.h), exactly, for every dataflow
// (tests/sc/mxu/test_pe_vs_fold.cpp proves it on random cases). Per-fold rules (README.md):
//   ws / is  the stationary tile of fold g+1 shifts in (R cycles) while fold g streams its T
//            vectors: fold starts are max(T, R) apart; the first tile of an op is exposed when
//            nothing streams before it. Last output: R - 1 rows down, n_f - 1 columns across.
//   os       outputs stay; fold g's results drain (R cycles per column) while fold g+1
//            accumulates: the last vector of a fold enters max(T, R) after the previous one's.

#include <cstdint>

#include "models/mxu/mxu_config.h"
#include "sim/core/units.h"

namespace systole::models {

/// How one matmul A[m x k] * W[k x n] lies on the array.
struct FoldPlan {
  std::uint64_t rows = 0;  ///< extent on the PE rows (ws, is: k; os: m)
  std::uint64_t cols = 0;  ///< extent on the PE columns (ws: n; is: m; os: n)
  std::uint64_t t = 0;     ///< vectors streamed per fold (ws: m; is: n; os: k)
  std::uint64_t row_folds = 0, col_folds = 0, folds = 0;
  std::uint64_t last_cols = 0;  ///< columns the last fold uses (folds go column block by block)
};

/// One matmul alone on an idle array with its operands ready at cycle 0.
struct MatmulCost {
  std::uint64_t folds = 0;
  std::uint64_t macs = 0;
  Cycles load{0};       ///< first stationary tile shifting in before the first input (ws/is: R)
  Cycles occupancy{0};  ///< folds x max(T, R): input-port time until the next op may stream
  Cycles latency{0};    ///< from the end of occupancy to the cycle after the last output left
  Cycles total{0};      ///< load + occupancy + latency: first word in to last result out
  double mapping_efficiency = 0;       ///< PEs holding real data / PEs, averaged over folds
  std::uint64_t vmem_elements = 0;     ///< operand elements read (streamed operand once per fold)
  std::uint64_t accumulator_rows = 0;  ///< rows of `cols` accumulators the output needs
};

/// Exact cycles (absolute, in MXU clock cycles) of one matmul issued to a pipeline.
struct OpSchedule {
  std::uint64_t ready = 0;         ///< operands available (first cycle anything may enter)
  std::uint64_t start = 0;         ///< first stationary word enters (os: first streamed word)
  std::uint64_t first_stream = 0;  ///< first operand vector of fold 0 enters
  std::uint64_t last_fold = 0;     ///< first vector of the last fold enters
  std::uint64_t stream_end = 0;    ///< cycle after the last vector entered (input port free)
  std::uint64_t end = 0;           ///< cycle after the last result left the array
  std::uint64_t streaming = 0;     ///< cycles in which a vector entered: folds x T
  std::uint64_t folds = 0;
  /// The same schedule `d` cycles later, `ready` unchanged (every constraint is a lower bound,
  /// so it stays legal).
  OpSchedule shifted(std::uint64_t d) const;
};

/// The fold-level rules of one array, for isolated matmuls.
class MxuTiming {
 public:
  explicit MxuTiming(const MxuConfig& cfg) : cfg_(cfg) {}
  FoldPlan plan(std::uint32_t m, std::uint32_t k, std::uint32_t n) const;
  MatmulCost matmul(std::uint32_t m, std::uint32_t k, std::uint32_t n) const;
  std::uint64_t peak_macs_per_cycle() const {
    return static_cast<std::uint64_t>(cfg_.rows * cfg_.cols);
  }
  const MxuConfig& config() const { return cfg_; }

 private:
  MxuConfig cfg_;
};

/// The array as a pipeline of back-to-back matmuls: remembers the last fold of the previous op
/// (ws/is: when it started streaming, when its stream ended; os: when its last vector entered)
/// and computes each new op's exact schedule in O(1).
class MxuPipeline {
 public:
  explicit MxuPipeline(const MxuConfig& cfg) : timing_(cfg) {}
  /// The schedule of the next matmul, operands ready at cycle `ready`; nothing is committed.
  OpSchedule plan(std::uint32_t m, std::uint32_t k, std::uint32_t n, std::uint64_t ready) const;
  /// Makes `s` (a plan of this pipeline, possibly shifted later) the last op issued.
  void commit(const OpSchedule& s);
  OpSchedule issue(std::uint32_t m, std::uint32_t k, std::uint32_t n, std::uint64_t ready) {
    const OpSchedule s = plan(m, k, n, ready);
    commit(s);
    return s;
  }
  const MxuTiming& timing() const { return timing_; }

 private:
  MxuTiming timing_;
  bool has_prev_ = false;
  std::uint64_t last_fold_ = 0;   // first vector of the previous op's last fold
  std::uint64_t stream_end_ = 0;  // cycle after the previous op's last vector
};

}  // namespace systole::models
