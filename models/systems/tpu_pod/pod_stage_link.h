#pragma once
// A pipeline stage's hand-off engine (`stage<s>.p2p`, the stage boundary of GPipe: Huang et al.,
// arXiv 1811.06965, §2.2). A send op offers one micro-batch's activations from every chip of the
// stage to its peer chip in the next stage (IciNetworkModule::start_point_to_point: every
// message crosses every link of its route) and completes at once: the stage goes on with its
// next micro-batch while they travel (buffer space is not modelled as a limit). A receive op
// completes when the previous stage's send of the same micro-batch has arrived at every chip.
// SPMD symmetry holds within a stage, so one unit stands for all of its chips.

#include <memory>
#include <utility>
#include <vector>

#include "models/common/unit_module.h"
#include "models/ici/ici_module.h"

namespace systole::models {

/// Per stage, how many micro-batches have fully arrived from the stage before it.
class PipelineHandoffs {
 public:
  explicit PipelineHandoffs(std::size_t stages);
  std::int64_t arrived(std::size_t stage) const { return arrived_.at(stage); }
  /// One more micro-batch has arrived at `stage`: wakes its receiver.
  void arrive(std::size_t stage);
  const sc_core::sc_event& event(std::size_t stage) const { return *events_.at(stage); }

 private:
  std::vector<std::int64_t> arrived_;
  std::vector<std::unique_ptr<sc_core::sc_event>> events_;
};

/// One hand-off as a stage saw it: a send (issue to last arrival) or a receive (the wait).
struct PodHandoffRecord {
  std::uint32_t layer = 0;
  std::uint64_t bytes = 0;  ///< per chip
  double begin_ps = 0, end_ps = 0;
  double formula_s = 0;  ///< sends: the idle-network time (point_to_point_seconds)
};

class PodStageLink : public UnitModule {
 public:
  /// Op::m of a send and of a receive (OpKind::kCollective on this unit).
  static constexpr std::uint32_t kSend = 16, kRecv = 17;

  /// `to_next`: (chip of this stage, its peer in the next stage) for every chip of the stage.
  PodStageLink(const sc_core::sc_module_name& name, std::uint16_t id, Scoreboard& board,
               stats::Trace* trace, IciNetworkModule& net, PipelineHandoffs& handoffs,
               std::size_t stage, std::vector<std::pair<ChipId, ChipId>> to_next);
  const std::vector<PodHandoffRecord>& sends() const { return sends_; }
  const std::vector<PodHandoffRecord>& receives() const { return receives_; }

 protected:
  sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) override;

 private:
  IciNetworkModule& net_;
  PipelineHandoffs& handoffs_;
  std::size_t stage_;
  std::vector<std::pair<ChipId, ChipId>> to_next_;
  std::vector<PodHandoffRecord> sends_, receives_;
};

}  // namespace systole::models
