#pragma once
// A chip's ICI collective engine as a program unit (`chip0.ici`): it takes the program's
// collective ops in order and, under SPMD symmetry, starts each on the whole slice at once (every
// group along the op's torus axes), since every chip reaches the same op at the same time; the
// op completes when the network delivers the collective's last message. The next dependent op
// waits on that completion through the scoreboard. Assumption: one collective at a time per
// chip (ops of the unit run in program order).

#include <vector>

#include "models/common/unit_module.h"
#include "models/ici/ici_module.h"

namespace systole::models {

/// One collective as the unit ran it.
struct PodCollectiveRecord {
  std::uint32_t layer = 0;
  CollectiveSpec spec;
  CollectiveResult result;
  double begin_ps = 0, end_ps = 0;
};

class PodCollectiveUnit : public UnitModule {
 public:
  PodCollectiveUnit(const sc_core::sc_module_name& name, std::uint16_t id, Scoreboard& board,
                    stats::Trace* trace, IciNetworkModule& net);
  const std::vector<PodCollectiveRecord>& records() const { return records_; }
  /// Runs each collective on the groups of the chips `chips` marks only (a pipeline stage's
  /// chips; empty: the whole slice, the default).
  void restrict_to(std::vector<bool> chips) { within_ = std::move(chips); }
  /// The collective `op` describes (OpKind::kCollective).
  static CollectiveSpec spec_of(const Op& op);

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;

 private:
  IciNetworkModule& net_;
  sc_core::sc_event done_;
  bool finished_ = false;
  std::vector<bool> within_;
  std::vector<PodCollectiveRecord> records_;
};

}  // namespace systole::models
