#pragma once
// SystemC shell of one MXU: executes matmul ops with the exact fold-level schedule of
// MxuPipeline (weight double-buffering: the next op's first tile shifts in while the previous
// op streams), optionally through the VMEM read port it shares with the other MXUs of its
// TensorCore. Classifies its cycles (MxuTimeline) for the per-layer and per-unit statistics.

#include <memory>

#include "models/common/unit_module.h"
#include "models/mxu/mxu_stats.h"
#include "models/mxu/mxu_timing.h"
#include "models/mxu/vmem_port.h"

namespace systole::models {

/// One MXU executing matmul ops at the fold-level model's exact cycles (event-driven).
class MxuModule : public UnitModule {
 public:
  MxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
            sc_core::sc_time period, Scoreboard& board, stats::Trace* trace);
  const MxuTiming& timing() const { return pipeline_.timing(); }
  /// Reads operands through `port` (shared by the MXUs of one core); without one the feed is
  /// ideal.
  void attach_vmem(std::shared_ptr<VmemPort> port) { vmem_ = std::move(port); }
  /// Counters of the layer in progress, of the last closed layer, and of all closed layers
  /// (MXU cycles; multiply by period() for time).
  const MxuCounters& layer_mxu() const { return layer_mxu_; }
  const MxuCounters& closed_layer_mxu() const { return closed_mxu_; }
  const MxuCounters& total_mxu() const { return total_mxu_; }
  sc_core::sc_time period() const { return period_; }
  /// Classifies the cycles up to now and closes the layer's counters.
  void end_layer() override;

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;
  void dequeued(const Op& op) override;
  void begin_layer() override;

 private:
  std::uint64_t now_cycle_ceil() const;

  MxuPipeline pipeline_;
  MxuTimeline timeline_;
  sc_core::sc_time period_;
  std::shared_ptr<VmemPort> vmem_;
  std::uint64_t layer_start_ = 0;  // cycle the current layer started
  DepWait wait_ = DepWait::kInput;
  MxuCounters layer_mxu_{};
  MxuCounters closed_mxu_{};
  MxuCounters total_mxu_{};
};

}  // namespace systole::models
