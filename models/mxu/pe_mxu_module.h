#pragma once
// The PE-level MXU variant (mxu.model: pe): every matmul of the program runs on the PE-level
// reference array (PePipeline over PeArray: every PE, every cycle, real multiply-accumulates)
// on pseudo-random operand codes seeded by the op's index, and each result is checked against
// a reference GEMM of the same codes (a mismatch is a SimError). Its cycles equal the
// fold-level variant's; it costs a few ns per PE per cycle, for small arrays and workloads.

#include "models/mxu/mxu_module.h"
#include "models/mxu/pe_pipeline.h"

namespace systole::models {

/// One MXU timed by the PE-level reference, with every result checked (reference fidelity).
class PeMxuModule : public MxuModule {
 public:
  PeMxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
              sc_core::sc_time period, Scoreboard& board, stats::Trace* trace)
      : MxuModule(name, id, cfg, period, board, trace), pipeline_(cfg) {}

  /// Matmul results (C elements) checked against the reference GEMM, and how many differed.
  std::uint64_t checked_results() const { return checked_; }
  std::uint64_t mismatches() const { return mismatches_; }
  /// Ops the VMEM port postponed (run again on the array, later).
  std::uint64_t postponed_ops() const { return postponed_; }
  const PePipeline& pipeline() const { return pipeline_; }

 protected:
  OpSchedule schedule(const Op& op, std::uint32_t index, std::uint64_t ready) override;
  OpSchedule postpone(const OpSchedule& s, std::uint64_t d) override;

 private:
  /// Checks the numbers of `r` (the last job) and turns its cycles into an OpSchedule.
  OpSchedule accept(const PeResult& r, std::uint64_t ready);

  PePipeline pipeline_;
  std::uint64_t checked_ = 0, mismatches_ = 0, postponed_ = 0;
};

}  // namespace systole::models
