#pragma once
// The SystemC interface through which DMA engines reach a memory (HBM, CMEM): whole strided
// transfers, so a bank-level memory can split them into requests itself (one call per transfer,
// not one SystemC event per burst).

#include <systemc>

#include <cstdint>

#include "models/common/memory_stats.h"  // MemoryCounters
#include "models/dma/dma_descriptor.h"

namespace systole::models {

/// One transfer as the memory sees it.
struct MemoryTransfer {
  DmaDescriptor desc;                 ///< addresses in the memory
  bool write = false;                 ///< towards the memory (a DMA store)
  std::uint16_t requester = 0;        ///< the DMA engine: its own in-order request stream
  std::uint32_t request_bytes = 512;  ///< the engine splits transfers into requests of this size
  std::uint32_t max_outstanding = 1;  ///< requests the engine may have in flight
  std::uint64_t bytes() const { return desc.bytes(); }
};

/// What a DMA engine sees of a memory: begin a whole transfer, finish it, read counters.
class MemoryIf : public virtual sc_core::sc_interface {
 public:
  /// Called from an SC_THREAD: queues `t` behind the requester's earlier transfers and returns
  /// a handle for finish(). Does not wait.
  virtual std::uint64_t begin(const MemoryTransfer& t) = 0;
  /// Called from an SC_THREAD: blocks until the memory has taken the whole transfer `h` (the
  /// requester's engine is then free); returns the extra time until its data has arrived.
  virtual sc_core::sc_time finish(std::uint64_t h) = 0;
  sc_core::sc_time transfer(const MemoryTransfer& t) { return finish(begin(t)); }
  virtual MemoryCounters counters() const = 0;
};

}  // namespace systole::models
