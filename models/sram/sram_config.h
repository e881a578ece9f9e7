#pragma once
// Configuration of an on-chip SRAM (TPU VMEM, CMEM): capacity, banks with ports, the access
// width that interleaves addresses over the banks, bandwidth and latencies; as CMEM, the
// acceptance queue of each requester.

#include "sim/config/schema.h"

namespace systole::models {

/// One SRAM role (vmem, cmem): capacity, banks, ports, width, bandwidth, latencies.
struct SramConfig {
  Bytes capacity{0};
  BytesPerSecond bandwidth{0};      ///< peak, all banks and ports together (VMEM: towards the MXUs)
  BytesPerSecond dma_bandwidth{0};  ///< VMEM: peak of the banks towards the DMA engines
  Picoseconds latency{0};           ///< read latency
  Picoseconds write_latency{0};
  std::int64_t banks = 0;
  std::int64_t ports = 0;  ///< independent accesses per bank at a time
  Bytes width{0};          ///< bytes per bank access; consecutive widths go to consecutive banks
  /// CMEM: transfers a requester may have accepted and not yet arrived (its acceptance queue;
  /// VMEM has no MemoryIf face and leaves it 0)
  std::int64_t transfer_queue = 0;
  /// Seconds one port of one bank needs for one access of `width` bytes when all banks and
  /// ports together move `peak` bytes per second.
  double access_seconds(BytesPerSecond peak) const {
    return static_cast<double>(width.value()) * static_cast<double>(banks * ports) / peak.value();
  }
  /// Schemas differ only in defaults, so each SRAM role has its own.
  static const config::SchemaOf<SramConfig>& vmem_schema();
  static const config::SchemaOf<SramConfig>& cmem_schema();
};

}  // namespace systole::models
