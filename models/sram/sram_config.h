#pragma once
// Configuration of an on-chip SRAM (TPU VMEM, CMEM).

#include "sim/config/schema.h"

namespace systole::models {

struct SramConfig {
  Bytes capacity{0};
  BytesPerSecond bandwidth{0};  ///< read bandwidth towards the memory system (CMEM) / MXUs
  Picoseconds latency{0};
  std::int64_t banks = 0;
  /// Schemas differ only in defaults, so each SRAM role has its own.
  static const config::SchemaOf<SramConfig>& vmem_schema();
  static const config::SchemaOf<SramConfig>& cmem_schema();
};

}  // namespace systole::models
