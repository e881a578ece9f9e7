#include "models/vector/vector_module.h"

#include "sim/core/error.h"

namespace systole::models {

VectorModule::VectorModule(const sc_core::sc_module_name& name, std::uint16_t id,
                           const VectorConfig& cfg, sc_core::sc_time period, Scoreboard& board,
                           stats::Trace* trace)
    : UnitModule(name, id, "vector", board, trace), timing_(cfg), period_(period) {}

sc_core::sc_time VectorModule::execute(const Op& op, sc_core::sc_time /*deps_done*/) {
  SYSTOLE_ASSERT(op.kind == OpKind::kVector, "vector unit given a non-vector op");
  const sc_core::sc_time busy = period_ * static_cast<double>(timing_.occupancy(op.lane_ops, 1.0));
  sc_core::wait(busy);
  counters(op.layer).busy_ps += busy.to_seconds() * 1e12;
  counters(op.layer).bytes += op.bytes;
  lane_ops_[op.layer] += op.lane_ops;
  return period_ * static_cast<double>(timing_.latency());
}

}  // namespace systole::models
