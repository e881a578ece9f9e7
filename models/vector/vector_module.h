#pragma once
// SystemC shell of one TensorCore vector unit: executes vector ops in order with the
// throughput timing of VectorTiming (one timed wait per op; results out after the latency).

#include "models/common/unit_module.h"
#include "models/vector/vector_timing.h"

namespace systole::models {

class VectorModule : public UnitModule {
 public:
  VectorModule(const sc_core::sc_module_name& name, std::uint16_t id, const VectorConfig& cfg,
               sc_core::sc_time period, Scoreboard& board, stats::Trace* trace);
  /// Lane operations and busy time of the last closed layer, and lane operations of all.
  std::uint64_t closed_lane_ops() const { return closed_lane_ops_; }
  double closed_busy_ps() const { return closed_busy_ps_; }
  std::uint64_t total_lane_ops() const { return total_lane_ops_; }
  void end_layer() override;

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;

 private:
  VectorTiming timing_;
  sc_core::sc_time period_;
  std::uint64_t layer_lane_ops_ = 0;
  std::uint64_t total_lane_ops_ = 0;
  std::uint64_t closed_lane_ops_ = 0;
  double closed_busy_ps_ = 0;
};

}  // namespace systole::models
