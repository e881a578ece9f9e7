#include "models/systems/tpu_pod/pod_stage_link.h"

#include "models/ici/ici_collective.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {
double now_ps() { return static_cast<double>(sc_core::sc_time_stamp().value()); }
}  // namespace

PipelineHandoffs::PipelineHandoffs(std::size_t stages) : arrived_(stages, 0) {
  for (std::size_t s = 0; s < stages; ++s) events_.push_back(std::make_unique<sc_core::sc_event>());
}

void PipelineHandoffs::arrive(std::size_t stage) {
  ++arrived_.at(stage);
  events_.at(stage)->notify(sc_core::SC_ZERO_TIME);
}

PodStageLink::PodStageLink(const sc_core::sc_module_name& name, std::uint16_t id, Scoreboard& board,
                           stats::Trace* trace, IciNetworkModule& net, PipelineHandoffs& handoffs,
                           std::size_t stage, std::vector<std::pair<ChipId, ChipId>> to_next)
    : UnitModule(name, id, "p2p", board, trace),
      net_(net),
      handoffs_(handoffs),
      stage_(stage),
      to_next_(std::move(to_next)) {}

sc_core::sc_time PodStageLink::execute(const Op& op, sc_core::sc_time /*deps_done*/) {
  SYSTOLE_ASSERT(op.kind == OpKind::kCollective && (op.m == kSend || op.m == kRecv),
                 "stage link given an op that is no send or receive");
  PodHandoffRecord rec;
  rec.layer = op.layer;
  rec.bytes = op.bytes;
  rec.begin_ps = now_ps();
  if (op.m == kRecv) {
    const auto j = static_cast<std::int64_t>(receives_.size());  // micro-batch j
    while (handoffs_.arrived(stage_) <= j) sc_core::wait(handoffs_.event(stage_));
    rec.end_ps = now_ps();
    receives_.push_back(rec);
    return sc_core::SC_ZERO_TIME;
  }
  SYSTOLE_ASSERT(!to_next_.empty(), "the last stage sends");
  rec.formula_s = point_to_point_seconds(net_.topology(), IciLinkTiming::from(net_.config()),
                                         to_next_, op.bytes);
  const std::size_t i = sends_.size();
  sends_.push_back(rec);
  counters(op.layer).bytes += op.bytes;
  net_.start_point_to_point(to_next_, op.bytes, [this, i](double time_s) {
    sends_[i].end_ps = sends_[i].begin_ps + time_s * 1e12;
    handoffs_.arrive(stage_ + 1);
  });
  return sc_core::SC_ZERO_TIME;  // the stage goes on while the activations travel
}

}  // namespace systole::models
