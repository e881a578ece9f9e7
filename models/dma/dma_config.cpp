#include "models/dma/dma_config.h"

namespace systole::models {

// TPU v4 DMA: strided access at 512 B granularity (FACTS.md §A.3, [V4-notes]); one request
// issued per cycle per core by the scalar unit (FACTS.md §A.4). The engine count and setup
// overhead are placeholders.
const config::SchemaOf<DmaConfig>& DmaConfig::schema() {
  static const config::SchemaOf<DmaConfig> s = [] {
    config::SchemaOf<DmaConfig> b("dma", "DMA engines between HBM/CMEM and VMEM");
    b.integer("engines", &DmaConfig::engines, 2, 1, 64, "engines per TensorCore", "engines")
        .bytes("granule", &DmaConfig::granule, std::string("512B"), Bytes(1), Bytes(1 << 20),
               "transfer granularity")
        .time("setup", &DmaConfig::setup, std::string("10ns"), 0, 1e-3,
              "issue overhead per transfer");
    return b;
  }();
  return s;
}

}  // namespace systole::models
