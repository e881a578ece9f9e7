#include "models/systems/tpu_pod/pod_collective_unit.h"

#include "sim/core/error.h"

namespace systole::models {

PodCollectiveUnit::PodCollectiveUnit(const sc_core::sc_module_name& name, std::uint16_t id,
                                     Scoreboard& board, stats::Trace* trace, IciNetworkModule& net)
    : UnitModule(name, id, "ici", board, trace), net_(net) {}

CollectiveSpec PodCollectiveUnit::spec_of(const Op& op) {
  CollectiveSpec s;
  s.op = static_cast<CollectiveOp>(op.m);
  // IR: 0 default (the network's choice: the torus algorithm), 1 ring, 2 bidir ring, 3 torus.
  s.algorithm = op.k == 1   ? CollectiveAlgorithm::kRing
                : op.k == 2 ? CollectiveAlgorithm::kBidirRing
                            : CollectiveAlgorithm::kTorus;
  s.bytes = op.bytes;
  for (int a = 0; a < 3; ++a) s.axes[static_cast<size_t>(a)] = (op.n >> a) & 1u;
  return s;
}

sc_core::sc_time PodCollectiveUnit::execute(const Op& op, sc_core::sc_time /*deps_done*/) {
  SYSTOLE_ASSERT(op.kind == OpKind::kCollective, "ICI unit given a non-collective op");
  PodCollectiveRecord rec;
  rec.layer = op.layer;
  rec.spec = spec_of(op);
  rec.begin_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  finished_ = false;
  const auto done = [this, &rec](const CollectiveResult& r) {
    rec.result = r;
    finished_ = true;
    done_.notify(sc_core::SC_ZERO_TIME);
  };
  if (within_.empty())
    net_.start_collective(rec.spec, done);
  else
    net_.start_collective_within(rec.spec, within_, done);
  while (!finished_) sc_core::wait(done_);  // a group of one chip finishes at once
  rec.end_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  counters(op.layer).busy_ps += rec.end_ps - rec.begin_ps;
  counters(op.layer).bytes += op.bytes;
  records_.push_back(rec);
  return sc_core::SC_ZERO_TIME;
}

}  // namespace systole::models
