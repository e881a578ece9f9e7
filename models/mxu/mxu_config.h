#pragma once
// Configuration of one MXU systolic array: shape, dataflow, operand and accumulator types, and
// the accumulator memory that holds output rows while the reduction advances.

#include <cstdint>

#include "sim/config/schema.h"
#include "sim/core/data_type.h"

namespace systole::models {

enum class Dataflow { kWeightStationary, kOutputStationary, kInputStationary };
const char* dataflow_name(Dataflow d);

struct MxuConfig {
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
