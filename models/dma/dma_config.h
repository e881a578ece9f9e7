#pragma once
// Configuration of the DMA engines that move tiles between HBM/CMEM and VMEM.

#include "sim/config/schema.h"

namespace systole::models {

struct DmaConfig {
  std::int64_t engines = 0;  ///< DMA engines per TensorCore
  Bytes granule{0};          ///< transfer granularity (sizes round up to it)
  Picoseconds setup{0};      ///< per-transfer issue overhead
  static const config::SchemaOf<DmaConfig>& schema();
};

}  // namespace systole::models
