#pragma once
// Configuration of a TensorCore's vector unit (VPU), which runs softmax, normalisations,
// activations and elementwise ops.

#include "sim/config/schema.h"

namespace systole::models {

/// Vector-lane operations per element of each vector op the compiler emits (the `ops` section):
/// how many VPU instructions an element of softmax, a normalisation or an activation takes. Not
/// published for any TPU: assumptions, swept in configs/tpuv4_sensitivity.yaml.
struct VectorOpCosts {
  double softmax = 0;         ///< max, subtract, exp, sum, divide
  double online_softmax = 0;  ///< fused attention, per score: max, subtract, exp, sum, rescale
  double layernorm = 0;       ///< mean, subtract, square, mean, rsqrt, multiply, add
  double rmsnorm = 0;         ///< square, mean, rsqrt, multiply
  double gelu = 0;            ///< tanh approximation
  double silu = 0;            ///< exp, add, reciprocal, multiply
  double lstm_cell = 0;       ///< 3 sigmoids, 2 tanh, 3 products and a sum per h_t element
  static const config::SchemaOf<VectorOpCosts>& schema();
};

struct VectorConfig {
  std::int64_t lanes = 0;    ///< 32-bit lane operations per cycle
  std::int64_t latency = 0;  ///< pipeline depth in cycles
  VectorOpCosts ops;
  static const config::SchemaOf<VectorConfig>& schema();
};

}  // namespace systole::models
