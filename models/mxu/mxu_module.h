#pragma once
// SystemC shell of one MXU: executes matmul ops with the fold-level timing of MxuTiming.
// Weight double-buffering: the first stationary tile of an op shifts in while the array is
// still busy with the previous op, so it is exposed only when the array would otherwise idle.

#include "models/common/unit_module.h"
#include "models/mxu/mxu_timing.h"

namespace systole::models {

struct MxuCounters {
  std::uint64_t macs = 0;
  std::uint64_t folds = 0;
  double load_exposed_ps = 0;   ///< stationary-tile shifting the array waited for
  double mapping_weighted = 0;  ///< sum of mapping efficiency x MACs
  void add(const MxuCounters& o) {
    macs += o.macs;
    folds += o.folds;
    load_exposed_ps += o.load_exposed_ps;
    mapping_weighted += o.mapping_weighted;
  }
};

class MxuModule : public UnitModule {
 public:
  MxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
            sc_core::sc_time period, Scoreboard& board, stats::Trace* trace);
  const MxuTiming& timing() const { return timing_; }
  const MxuCounters& layer_mxu() const { return layer_mxu_; }
  const MxuCounters& total_mxu() const { return total_mxu_; }
  void end_layer() override;

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;

 private:
  MxuTiming timing_;
  sc_core::sc_time period_;
  MxuCounters layer_mxu_{};
  MxuCounters total_mxu_{};
};

}  // namespace systole::models
