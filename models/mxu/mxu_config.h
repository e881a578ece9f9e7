#pragma once
// Configuration of one MXU systolic array: shape, dataflow, operand and accumulator types, and
// the accumulator memory that holds output rows while the reduction advances.

#include <cstdint>

#include "sim/config/schema.h"
#include "sim/core/data_type.h"

namespace systole::models {

enum class Dataflow { kWeightStationary, kOutputStationary, kInputStationary };
const char* dataflow_name(Dataflow d);

/// Which model executes the MXU's matmuls in a run: the fold-level one (event-driven, closed
/// forms per op) or the PE-level reference (every PE, every cycle, real arithmetic, checked
/// against a reference GEMM). Both give the same cycles.
enum class MxuModel { kFold, kPe };

/// The largest array (rows x cols PEs) `model: pe` accepts: 128 x 128, TPU v4's array and the
/// largest the PE == fold property tests cover. The PE model costs ~10 ns per PE per cycle
/// (128x128: ~6,500 cycles/s; 256x256: ~850) and ~200 B per PE per copy of its state.
constexpr std::int64_t kMaxPeModelPes = 128 * 128;

struct MxuConfig {
  MxuModel model = MxuModel::kFold;
  std::int64_t rows = 0;  ///< PE rows (the reduction dimension in weight-stationary)
  std::int64_t cols = 0;  ///< PE columns (output channels in weight-stationary)
  Dataflow dataflow = Dataflow::kWeightStationary;
  DataType input_type = DataType::kBf16;
  DataType accumulate_type = DataType::kFp32;
  std::int64_t accumulators = 0;  ///< accumulator rows per MXU, each `cols` 32-bit sums wide
  /// Weight tiles (rows x cols each) the FIFO between weight memory and the array holds ahead
  /// of the array's own double-buffered (shadow) tile; 0: no FIFO, weights are staged in VMEM
  /// tiles, double-buffered (TPU v4).
  std::int64_t weight_fifo = 0;
  static const config::SchemaOf<MxuConfig>& schema();
};

}  // namespace systole::models
