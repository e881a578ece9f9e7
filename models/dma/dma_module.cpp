#include "models/dma/dma_module.h"

#include "sim/core/error.h"

namespace systole::models {

DmaModule::DmaModule(const sc_core::sc_module_name& name, std::uint16_t id, const DmaConfig& cfg,
                     Scoreboard& board, stats::Trace* trace)
    : UnitModule(name, id, "dma", board, trace), cfg_(cfg) {}

sc_core::sc_time DmaModule::execute(const Op& op, sc_core::sc_time /*deps_done*/) {
  SYSTOLE_ASSERT(op.kind == OpKind::kLoad || op.kind == OpKind::kStore, "DMA given a non-DMA op");
  const std::uint64_t g = cfg_.granule.value();
  const std::uint64_t bytes = (op.bytes + g - 1) / g * g;
  if (cfg_.setup.value())
    sc_core::wait(sc_core::sc_time(static_cast<double>(cfg_.setup.value()), sc_core::SC_PS));
  MemoryIf& mem = op.memory == 0 ? *hbm[0] : *cmem[0];
  counters().bytes += bytes;
  const sc_core::sc_time begin = sc_core::sc_time_stamp();
  const sc_core::sc_time latency = mem.transfer(bytes, op.kind == OpKind::kStore);
  counters().busy_ps += (sc_core::sc_time_stamp() - begin).to_seconds() * 1e12;
  return latency;
}

}  // namespace systole::models
