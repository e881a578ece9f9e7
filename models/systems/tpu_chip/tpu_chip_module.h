#pragma once
// The SystemC netlist of one TPU chip: per TensorCore, MXUs (fold- or PE-level, mxu.model), DMA
// engines, a vector unit and the VMEM banks the engines fill; one HBM (bank-level or
// bandwidth/latency, hbm.model) and one banked CMEM shared by all DMA engines; with a declared
// host link, host memory behind it and one host DMA engine that fills core 0's VMEM from it
// (TPU v1's Read_Host_Memory / Write_Host_Memory). It executes a whole workload's program under
// one sc_start.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/common/scoreboard.h"
#include "models/dma/dma_module.h"
#include "models/hbm/bandwidth_memory_module.h"
#include "models/hbm/hbm_module.h"
#include "models/mxu/mxu_module.h"
#include "models/sram/sram_module.h"
#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "models/vector/vector_module.h"

namespace systole::models {

class TpuChipModule : public sc_core::sc_module {
 public:
  TpuChipModule(const sc_core::sc_module_name& name, const TpuChipConfig& cfg, stats::Trace* trace);

  /// Runs `program` (ops of `layers` workload layers) to completion: one sc_start until no
  /// event remains. Returns the elapsed time; throws SimError if the program names a unit or
  /// memory this netlist does not have (by instance path: `<name>.core0.mxu0`, `<name>.hbm`) or
  /// if it deadlocked.
  sc_core::sc_time run(const Program& program, std::uint32_t layers);
  /// run() in parts, for several chips under one sc_start (a pod's pipeline stages): start()
  /// resolves `program` and wakes the units; after the caller's sc_start, finish() checks that
  /// every op completed (SimError naming this chip if not) and ends the units' run.
  void start(const Program& program, std::uint32_t layers);
  void finish();
  /// The scoreboard of the last run: when each op completed.
  const Scoreboard& board() const { return board_; }
  /// The scoreboard units of this chip report to: for a unit added with add_unit.
  Scoreboard& scoreboard() { return board_; }
  /// Adds a unit built outside the chip (a pod's ICI collective unit, reporting to
  /// scoreboard()) under the path `<name>.<local>`; call before run().
  void add_unit(const std::string& local, UnitModule* unit) { extra_.emplace_back(local, unit); }

  const TpuChipConfig& config() const { return cfg_; }
  sc_core::sc_time period() const { return period_; }
  const std::vector<std::unique_ptr<MxuModule>>& mxus() const { return mxus_; }
  const std::vector<std::unique_ptr<DmaModule>>& dmas() const { return dmas_; }
  const std::vector<std::unique_ptr<VectorModule>>& vpus() const { return vpus_; }
  const MemoryIf& hbm() const { return *hbm_; }
  /// The bank-level HBM, or nullptr under hbm.model: bandwidth.
  HbmModule* hbm_banks() const { return hbm_banks_; }
  const SramModule& cmem() const { return *cmem_; }
  /// The host DMA engine and host memory (over the host link), or nullptr without host link.
  const DmaModule* host_dma() const { return host_dma_.get(); }
  const MemoryIf* host() const { return host_.get(); }
  /// Each TensorCore's VMEM (the DMA side: tiles written and read by the engines).
  const std::vector<std::unique_ptr<SramModule>>& vmems() const { return vmems_; }

 private:
  TpuChipConfig cfg_;
  sc_core::sc_time period_;
  Scoreboard board_;
  std::unique_ptr<sc_core::sc_module> hbm_module_;
  MemoryIf* hbm_ = nullptr;
  HbmModule* hbm_banks_ = nullptr;
  std::unique_ptr<SramModule> cmem_;
  std::vector<std::unique_ptr<SramModule>> vmems_;
  std::vector<std::unique_ptr<MxuModule>> mxus_;
  std::vector<std::unique_ptr<DmaModule>> dmas_;
  std::vector<std::unique_ptr<VectorModule>> vpus_;
  std::unique_ptr<BandwidthMemoryModule> host_;  // host memory, as the host link delivers it
  std::unique_ptr<DmaModule> host_dma_;
  std::vector<UnitModule*> units_;                          // by unit id
  std::vector<std::pair<std::string, UnitModule*>> extra_;  // add_unit
  /// Transfers the host engine may have accepted by host memory and not yet complete.
  static constexpr std::uint32_t kHostTransferQueue = 16;
  stats::Trace* trace_ = nullptr;
  /// Builds host memory and the host DMA engine (cfg.host declared).
  void add_host_link();
  /// Resolves the program's unit paths to this netlist's units and routes its memories.
  std::vector<UnitModule*> resolve(const Program& program);
};

}  // namespace systole::models
