#include "models/mxu/mxu_module.h"

#include "sim/core/error.h"

namespace systole::models {

MxuModule::MxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
                     sc_core::sc_time period, Scoreboard& board, stats::Trace* trace)
    : UnitModule(name, id, "mxu", board, trace), timing_(cfg), period_(period) {}

void MxuModule::end_layer() {
  UnitModule::end_layer();
  total_mxu_.add(layer_mxu_);
  layer_mxu_ = {};
}

sc_core::sc_time MxuModule::execute(const Op& op, sc_core::sc_time deps_done) {
  SYSTOLE_ASSERT(op.kind == OpKind::kMatmul, "MXU given a non-matmul op");
  const MatmulCost c = timing_.matmul(op.m, op.k, op.n);
  // The first stationary tile can start shifting in once the operands are in VMEM; the array
  // starts streaming when both that load and the previous op's inputs are done.
  const sc_core::sc_time ready = deps_done + period_ * static_cast<double>(c.load.value());
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (ready > now) {
    layer_mxu_.load_exposed_ps += (ready - now).to_seconds() * 1e12;
    sc_core::wait(ready - now);
  }
  const sc_core::sc_time occupancy = period_ * static_cast<double>(c.occupancy.value());
  sc_core::wait(occupancy);
  counters().busy_ps += occupancy.to_seconds() * 1e12;
  layer_mxu_.macs += c.macs;
  layer_mxu_.folds += c.folds;
  layer_mxu_.mapping_weighted += c.mapping_efficiency * static_cast<double>(c.macs);
  counters().bytes += op.bytes;
  return period_ * static_cast<double>(c.latency.value());
}

}  // namespace systole::models
