#pragma once
// The fold-level MXU variant (mxu.model: fold, the default): each op's exact schedule from
// MxuPipeline's closed forms, O(1) per op, event-driven.

#include "models/mxu/mxu_module.h"

namespace systole::models {

/// One MXU timed by the fold-level model (equal to the PE-level reference, cycle for cycle).
class FoldMxuModule : public MxuModule {
 public:
  FoldMxuModule(const sc_core::sc_module_name& name, std::uint16_t id, const MxuConfig& cfg,
                sc_core::sc_time period, Scoreboard& board, stats::Trace* trace)
      : MxuModule(name, id, cfg, period, board, trace), pipeline_(cfg) {}

 protected:
  OpSchedule schedule(const Op& op, std::uint32_t /*index*/, std::uint64_t ready) override {
    const OpSchedule s = pipeline_.plan(op.m, op.k, op.n, ready);
    pipeline_.commit(s);
    return s;
  }
  OpSchedule postpone(const OpSchedule& s, std::uint64_t d) override {
    const OpSchedule later = s.shifted(d);
    pipeline_.commit(later);
    return later;
  }

 private:
  MxuPipeline pipeline_;
};

}  // namespace systole::models
