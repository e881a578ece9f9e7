#pragma once
// SystemC shell of one MXU, shared by its model variants (mxu.model, make_mxu_module): executes
// matmul ops in order at the exact cycles its variant schedules (weight double-buffering: the
// next op's first tile shifts in while the previous op streams), optionally through the VMEM
// read port it shares with the other MXUs of its TensorCore. Classifies its cycles
// (MxuTimeline) for the per-layer and per-unit statistics, the same way for every variant.

#include <memory>
#include <vector>

#include "models/common/unit_module.h"
#include "models/mxu/mxu_stats.h"
#include "models/mxu/mxu_timing.h"
#include "models/mxu/vmem_port.h"

namespace systole::models {

/// One MXU executing matmul ops (event-driven); a variant decides each op's cycles: the
/// fold-level model (FoldMxuModule) or the PE-level reference (PeMxuModule).
class MxuModule : public UnitModule {
 public:
  MxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
            sc_core::sc_time period, Scoreboard& board, stats::Trace* trace);
  const MxuTiming& timing() const { return timing_; }
  /// Reads operands through `port` (shared by the MXUs of one core); without one the feed is
  /// ideal.
  void attach_vmem(std::shared_ptr<VmemPort> port) { vmem_ = std::move(port); }
  /// Counters of one workload layer, and of the run (MXU cycles; multiply by period() for
  /// time). A gap before an op counts in the op's layer.
  const MxuCounters& layer_mxu(std::uint32_t layer) const { return layers_mxu_[layer]; }
  MxuCounters total_mxu() const;
  sc_core::sc_time period() const { return period_; }
  /// Classifies the drain of the last op (into its layer).
  void end_run() override;

 protected:
  /// The exact schedule of matmul `op` (program op `index`) as the next op on the array, its
  /// operands ready at cycle `ready`; it stands until the next call or postpone().
  virtual OpSchedule schedule(const Op& op, std::uint32_t index, std::uint64_t ready) = 0;
  /// The op just scheduled (`s`), postponed as a whole by `d` cycles: the VMEM port delivers
  /// its operands too late for `s` (op granularity, vmem_port.h).
  virtual OpSchedule postpone(const OpSchedule& s, std::uint64_t d) = 0;

  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;
  void dequeued(const Op& op) override;
  void begin_run(std::uint32_t layers) override;

 private:
  std::uint64_t now_cycle_ceil() const;
  /// A new layer instance: settles the timeline up to its beginning.
  void enter_instance(const Op& op);
  /// Keeps a weight wait only if a weight tile was what `op` waited for last.
  void refine_wait(const Op& op, sc_core::sc_time deps_done);
  /// Counts `op`, scheduled as `s` and postponed `delay` cycles by the VMEM port.
  void record(const Op& op, const MatmulCost& c, const OpSchedule& s, std::uint64_t delay,
              std::uint64_t bytes);

  MxuTiming timing_;
  MxuTimeline timeline_;
  sc_core::sc_time period_;
  std::shared_ptr<VmemPort> vmem_;
  std::uint64_t run_start_ = 0;  // cycle the program started
  DepWait wait_ = DepWait::kInput;
  bool waits_weight_ = false;  // a weight load was pending when the op was dequeued
  std::vector<MxuCounters> layers_mxu_;
  std::uint32_t last_layer_ = 0;     // the layer of the last op executed
  std::uint32_t last_instance_ = 0;  // and its layer instance
};

}  // namespace systole::models
