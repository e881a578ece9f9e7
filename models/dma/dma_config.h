#pragma once
// Configuration of the DMA engines that move tiles between HBM/CMEM and VMEM.

#include "sim/config/schema.h"

namespace systole::models {

/// The `dma` section: engines per core, granule, setup, request size, outstanding depth.
struct DmaConfig {
  std::int64_t engines = 0;      ///< DMA engines per TensorCore
  Bytes granule{0};              ///< transfer granularity (contiguous pieces round up to it)
  Picoseconds setup{0};          ///< per-transfer issue overhead
  Bytes request{0};              ///< bytes per memory request (a power of two)
  std::int64_t outstanding = 0;  ///< memory requests an engine may have in flight
  static const config::SchemaOf<DmaConfig>& schema();
};

/// A schema check of a request engine (DMA, host link): throws a ConfigError at `n`'s `request`
/// key (path `p`) when `request` is not a power of two.
void check_request_size(Bytes request, const config::Node& n, const std::string& p);

}  // namespace systole::models
