#include "models/vector/vector_config.h"

namespace systole::models {

// TPU v4 VPU: 8 sublanes x 128 lanes of 32-bit per TensorCore, mostly 1-cycle issue and
// 2-cycle latency (FACTS.md §A.3/§A.4, [SB-tpus] Appendix C; secondary).
const config::SchemaOf<VectorConfig>& VectorConfig::schema() {
  static const config::SchemaOf<VectorConfig> s = [] {
    config::SchemaOf<VectorConfig> b("vector", "vector unit of a TensorCore");
    b.integer("lanes", &VectorConfig::lanes, 1024, 1, 1 << 20, "32-bit lane operations per cycle",
              "lanes")
        .integer("latency", &VectorConfig::latency, 2, 0, 1 << 16, "pipeline depth", "cycles");
    return b;
  }();
  return s;
}

}  // namespace systole::models
