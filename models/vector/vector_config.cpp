#include "models/vector/vector_config.h"

namespace systole::models {

// TPU v4 VPU: 8 sublanes x 128 lanes of 32-bit per TensorCore, mostly 1-cycle issue and
// 2-cycle latency (FACTS.md §A.3/§A.4, [SB-tpus] Appendix C; secondary).
const config::SchemaOf<VectorConfig>& VectorConfig::schema() {
  static const config::SchemaOf<VectorConfig> s = [] {
    config::SchemaOf<VectorConfig> b("vector", "vector unit of a TensorCore");
    b.integer("lanes", &VectorConfig::lanes, 1024, 1, 1 << 20, "32-bit lane operations per cycle",
              "lanes")
        .integer("latency", &VectorConfig::latency, 2, 0, 1 << 16, "pipeline depth", "cycles")
        .group("ops", &VectorConfig::ops, VectorOpCosts::schema(),
               "lane operations per element of each vector op");
    return b;
  }();
  return s;
}

// ASSUMPTION (every value): no VPU instruction counts are published. Each counts the
// elementwise steps of the op's usual formulation, one lane operation per step, an exp or a
// reciprocal as one (the VPU's transcendental unit); sigmoid and tanh as 3 (exp, add,
// reciprocal). Plausible range: half to twice these.
const config::SchemaOf<VectorOpCosts>& VectorOpCosts::schema() {
  static const config::SchemaOf<VectorOpCosts> s = [] {
    config::SchemaOf<VectorOpCosts> b("ops", "vector-lane operations per element");
    b.real("softmax", &VectorOpCosts::softmax, 5, 0.01, 1e6,
           "softmax: max, subtract, exp, sum, divide", "ops/element")
        .real("online_softmax", &VectorOpCosts::online_softmax, 7, 0.01, 1e6,
              "fused attention, per score: max, subtract, exp, sum, rescale", "ops/element")
        .real("layernorm", &VectorOpCosts::layernorm, 7, 0.01, 1e6,
              "layernorm: mean, subtract, square, mean, rsqrt, multiply, add", "ops/element")
        .real("rmsnorm", &VectorOpCosts::rmsnorm, 4, 0.01, 1e6,
              "RMSNorm: square, mean, rsqrt, multiply", "ops/element")
        .real("gelu", &VectorOpCosts::gelu, 8, 0.01, 1e6, "GELU (tanh approximation)",
              "ops/element")
        .real("silu", &VectorOpCosts::silu, 4, 0.01, 1e6, "SiLU: exp, add, reciprocal, multiply",
              "ops/element")
        .real("lstm_cell", &VectorOpCosts::lstm_cell, 19, 0.01, 1e6,
              "LSTM cell per h_t element: 3 sigmoids and 2 tanh at 3 each, 3 products, a sum",
              "ops/element");
    return b;
  }();
  return s;
}

}  // namespace systole::models
