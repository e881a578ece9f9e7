#pragma once
// SystemC shell of a banked SRAM (SramTiming). Two faces: as VMEM, DMA engines reserve its
// banks for the tile they write or read (access(), non-blocking: the engine waits for the later
// of the memory side and the SRAM side); as CMEM, it is a memory behind MemoryIf like HBM,
// where a request holds its requester's outstanding slot for the latency after its issue
// (RequestWindow), as on the bandwidth HBM model.

#include <map>

#include "models/common/memory_if.h"
#include "models/common/request_window.h"
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
class SramModule : public sc_core::sc_module, public SramIf, public MemoryIf {
 public:
  /// `peak`: the bandwidth of the face it serves (VMEM: dma_bandwidth; CMEM: bandwidth).
  SramModule(const sc_core::sc_module_name& name, const SramConfig& cfg, BytesPerSecond peak);

  sc_core::sc_time access(const DmaDescriptor& d, bool write) override;
  std::uint64_t begin(const MemoryTransfer& t) override;
  sc_core::sc_time finish(std::uint64_t h) override;
  MemoryCounters counters() const override;
  const SramTiming& timing() const { return timing_; }

 private:
  SramTiming timing_;
  double peak_;
  std::map<std::uint16_t, RequestWindow> windows_;  // per requester (the CMEM face)
  std::map<std::uint64_t, double> pending_;         // handle -> when its data has arrived (ps)
  std::uint64_t next_ = 1;
};

}  // namespace systole::models
