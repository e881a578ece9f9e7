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
  /// Lane operations of one workload layer (its busy time: layer_counters(layer).busy_ps).
  std::uint64_t lane_ops(std::uint32_t layer) const { return lane_ops_[layer]; }

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;
  void begin_run(std::uint32_t layers) override { lane_ops_.assign(layers, 0); }

 private:
  VectorTiming timing_;
  sc_core::sc_time period_;
  std::vector<std::uint64_t> lane_ops_;
};

}  // namespace systole::models
