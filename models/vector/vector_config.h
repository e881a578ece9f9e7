#pragma once
// Configuration of a TensorCore's vector unit (VPU), which runs softmax, normalisations,
// activations and elementwise ops.

#include "sim/config/schema.h"

namespace systole::models {

struct VectorConfig {
  std::int64_t lanes = 0;    ///< 32-bit lane operations per cycle
  std::int64_t latency = 0;  ///< pipeline depth in cycles
  static const config::SchemaOf<VectorConfig>& schema();
};

}  // namespace systole::models
