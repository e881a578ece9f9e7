#include "models/vector/vector_module.h"

#include "sim/core/error.h"

namespace systole::models {

VectorModule::VectorModule(const sc_core::sc_module_name& name, std::uint16_t id,
                           const VectorConfig& cfg, sc_core::sc_time period, Scoreboard& board,
                           stats::Trace* trace)
    : UnitModule(name, id, "vector", board, trace), timing_(cfg), period_(period) {}

void VectorModule::end_layer() {
  closed_busy_ps_ = layer_counters().busy_ps;
  UnitModule::end_layer();
  closed_lane_ops_ = layer_lane_ops_;
  total_lane_ops_ += layer_lane_ops_;
  layer_lane_ops_ = 0;
}

sc_core::sc_time VectorModule::execute(const Op& op, sc_core::sc_time /*deps_done*/) {
  SYSTOLE_ASSERT(op.kind == OpKind::kVector, "vector unit given a non-vector op");
  const sc_core::sc_time busy = period_ * static_cast<double>(timing_.occupancy(op.lane_ops, 1.0));
  sc_core::wait(busy);
  counters().busy_ps += busy.to_seconds() * 1e12;
  counters().bytes += op.bytes;
  layer_lane_ops_ += op.lane_ops;
  return period_ * static_cast<double>(timing_.latency());
}

}  // namespace systole::models
