#pragma once
// SystemC shell of one DMA engine: moves tiles between a memory (HBM or CMEM, reached through
// MemoryIf ports) and VMEM. A transfer is a strided descriptor (the tile's rows in the memory);
// the engine hands it to the memory whole, which splits it into requests of `request` bytes
// with at most `outstanding` in flight. Like a descriptor-driven DMA, the engine starts its next
// transfer as soon as that one's dependencies are met — while the current one is still moving —
// so the memory sees its transfers back to back; an op retires when its data has arrived. The
// VMEM side streams along (its banks reserved from the start); it delays the op only where its
// bank conflicts make it slower than the memory. VMEM's latency overlaps the memory's.
// A memory may refuse a transfer (its acceptance queue for this engine is full): the engine's
// run-ahead then waits for the memory's retry and offers it again; that time is `held`, and
// it lies inside the op's busy time when the op is already executing.

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "models/common/memory_if.h"
#include "models/common/unit_module.h"
#include "models/dma/dma_config.h"
#include "models/sram/sram_module.h"

namespace systole::models {

/// One DMA engine: in-order ops, transfers started ahead, retired when their data arrived.
class DmaModule : public UnitModule {
 public:
  sc_core::sc_port<MemoryIf> hbm;
  sc_core::sc_port<MemoryIf> cmem;
  /// The core's VMEM (optional): its banks are reserved for the tile while the memory moves it.
  sc_core::sc_port<SramIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> vmem;

  DmaModule(const sc_core::sc_module_name& name, std::uint16_t id, const DmaConfig& cfg,
            Scoreboard& board, stats::Trace* trace);

  /// The memory-side transfer of a load/store op: its descriptor (contiguous `bytes` from the
  /// op's address when it has none), pieces rounded up to the granule.
  static MemoryTransfer memory_transfer(const Op& op, const DmaConfig& cfg, std::uint16_t engine);
  /// Bytes one layer's transfers moved through the `hbm` port (`port` 0) or the `cmem` port
  /// (1), as the memory saw them (pieces rounded up to the granule).
  std::uint64_t memory_bytes(std::uint32_t layer, int port) const {
    return memory_bytes_[layer][port == 0 ? 0 : 1];
  }

  /// Which port serves each memory the program names (Program::memories): `cmem_at[i]` is true
  /// for the memory behind the `cmem` port, false for the one behind `hbm`. Set by the netlist
  /// before a run, from the paths.
  void route(std::vector<bool> cmem_at) { cmem_at_ = std::move(cmem_at); }
  /// The VMEM it fills, as a path below its device's (traces): by default the one beside the
  /// engine (`chip0.core1.dma0` fills `chip0.core1.vmem`); a chip-level engine names its own.
  void set_vmem_path(std::string local) { vmem_path_ = std::move(local); }
  /// Picoseconds one layer's transfers waited for a memory to accept them (back-pressure).
  double held_ps(std::uint32_t layer) const { return held_ps_[layer]; }

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;
  void begin_run(std::uint32_t layers) override;
  /// Loads go from the op's memory (HBM, CMEM) to the VMEM of the engine's core, stores back.
  void trace_route(const Op& op, stats::Trace& trace, stats::TraceEvent& e) const override;

 private:
  /// Pays the setup and hands the op's transfer to its memory; returns the memory's handle.
  std::uint64_t start(const Op& op, std::size_t p);
  MemoryIf& memory(const Op& op) { return cmem_at_[op.memory] ? *cmem[0] : *hbm[0]; }
  void run_ahead();  // SC_THREAD: starts the next op's transfer once its dependencies are met

  DmaConfig cfg_;
  Scoreboard& scoreboard_;
  std::vector<bool> cmem_at_;
  std::string vmem_path_;             // set_vmem_path; empty: the engine's own core's VMEM
  std::vector<std::uint32_t> order_;  // this engine's ops in program (= queue) order
  std::vector<char> claimed_, started_;
  std::vector<std::uint64_t> handle_;
  std::vector<sc_core::sc_time> vmem_done_;
  std::vector<std::array<std::uint64_t, 2>> memory_bytes_;  // per layer: hbm, cmem port
  std::vector<double> held_ps_;                             // per layer: refused, waiting
  std::size_t cursor_ = 0;     // first op whose transfer has not been started
  std::size_t executing_ = 0;  // the op execute() takes next
  sc_core::sc_event advanced_, started_ev_;
};

}  // namespace systole::models
