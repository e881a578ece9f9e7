#pragma once
// SystemC shell of one DMA engine: moves tiles between a memory (HBM or CMEM, reached through
// MemoryIf ports) and VMEM. An engine issues one transfer at a time; a transfer's data arrives
// after the memory's latency, while the engine already issues the next one.

#include "models/common/memory_if.h"
#include "models/common/unit_module.h"
#include "models/dma/dma_config.h"

namespace systole::models {

class DmaModule : public UnitModule {
 public:
  sc_core::sc_port<MemoryIf> hbm;
  sc_core::sc_port<MemoryIf> cmem;

  DmaModule(const sc_core::sc_module_name& name, std::uint16_t id, const DmaConfig& cfg,
            Scoreboard& board, stats::Trace* trace);

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;

 private:
  DmaConfig cfg_;
};

}  // namespace systole::models
