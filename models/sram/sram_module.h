#pragma once
// SystemC shell of a banked SRAM (SramTiming). Two faces: as VMEM, DMA engines reserve its
// banks for the tile they write or read (access(), non-blocking: the engine waits for the later
// of the memory side and the SRAM side); as CMEM, it is a memory behind MemoryIf like HBM,
// where a request holds its requester's outstanding slot for the latency after its issue
// (RequestWindow), as on the bandwidth HBM model, and each requester may have `transfer_queue`
// transfers accepted and not yet arrived (TimedMemoryModule).

#include "models/common/timed_memory_module.h"
#include "models/sram/sram_timing.h"

namespace systole::models {

/// The SRAM side of a DMA transfer.
class SramIf : public virtual sc_core::sc_interface {
 public:
  /// Reserves the banks for `d` from now on; returns when the last access is done (latency
  /// excluded). Does not wait.
  virtual sc_core::sc_time access(const DmaDescriptor& d, bool write) = 0;
};

/// SystemC face of SramTiming: VMEM for DMA tiles, or CMEM as a memory.
class SramModule : public TimedMemoryModule, public SramIf {
 public:
  /// `peak`: the bandwidth of the face it serves (VMEM: dma_bandwidth; CMEM: bandwidth).
  SramModule(const sc_core::sc_module_name& name, const SramConfig& cfg, BytesPerSecond peak);

  sc_core::sc_time access(const DmaDescriptor& d, bool write) override;
  MemoryCounters counters() const override;
  const SramTiming& timing() const { return timing_; }

 protected:
  double accept(const MemoryTransfer& t, double now_ps, RequestWindow& window) override;

 private:
  SramTiming timing_;
  double peak_;
};

}  // namespace systole::models
