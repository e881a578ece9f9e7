#include "models/systems/gpu_node/node_collectives.h"

#include "sim/core/error.h"

namespace systole::models {

namespace {

/// Copies `sub` (a schedule on a `g`-GPU node: GPUs 0..g-1, the fabric g) into `s` for group
/// `k` of the node: GPU r becomes k x g + r, the fabric the node's.
void append_group(IciSchedule& s, const IciSchedule& sub, int g, int k, ChipId fabric) {
  const auto base = static_cast<IciMessageId>(s.size());
  const auto map = [&](ChipId c) {
    return c == static_cast<ChipId>(g) ? fabric : static_cast<ChipId>(k * g) + c;
  };
  std::vector<IciMessageId> deps;
  for (IciMessageId m = 0; m < sub.size(); ++m) {
    const IciSchedule::Message& msg = sub.message(m);
    deps.clear();
    for (const IciMessageId* d = sub.deps_begin(m); d != sub.deps_end(m); ++d)
      deps.push_back(base + *d);
    const IciMessageId id = s.add(map(msg.src), map(msg.dst), msg.bytes, deps, msg.release_ps);
    s.set_delay(id, msg.delay_ps);
  }
}

}  // namespace

NodeCollectives::NodeCollectives(const NvlinkConfig& c)
    : cfg_(c), routes_(static_cast<int>(c.gpus)), net_(make_nvlink_network(cfg_, routes_)) {}

NodeCollectiveRun NodeCollectives::run(const NcclSpec& spec, int group_size, std::uint64_t t0) {
  const int n = static_cast<int>(cfg_.gpus);
  SYSTOLE_ASSERT(group_size >= 1 && n % group_size == 0, "a group size must divide the node");
  NodeCollectiveRun out;
  out.spec = spec;
  out.group_size = group_size;
  out.begin_ps = t0;
  out.end_ps = t0;
  if (group_size == 1) {  // a group of one GPU: nothing moves
    out.result.result.group_size = 1;
    out.link_bytes.assign(net_->link_bytes().size(), 0);
    return out;
  }
  // The schedule of one group on a node of `group_size` GPUs, as the nvlink model builds it.
  NvlinkConfig gc = cfg_;
  gc.gpus = group_size;
  const NvSwitchRoutes group_routes(group_size);
  out.result.choice = nccl_choose(gc, spec);
  IciSchedule sub;
  CollectivePlan plan = append_nccl(sub, group_routes, gc, spec, out.result.choice);
  IciSchedule s;
  if (group_size == n) {
    s = sub;
  } else {
    for (int k = 0; k < n / group_size; ++k) append_group(s, sub, group_size, k, routes_.fabric());
  }
  plan.groups = n / group_size;
  const std::vector<std::uint64_t> before = net_->link_bytes();
  const IciScheduleResult r = run_schedule(*net_, s, t0);
  out.end_ps = r.end_ps;
  out.link_bytes = net_->link_bytes();
  for (std::size_t l = 0; l < before.size(); ++l) out.link_bytes[l] -= before[l];
  CollectiveSpec cs;
  cs.op = spec.op;
  cs.bytes = spec.bytes;
  out.result.result = collective_result(cs, plan, static_cast<double>(r.end_ps - t0) * 1e-12,
                                        nccl_alpha_beta_seconds(gc, spec, out.result.choice));
  return out;
}

CollectiveOp nccl_op_of(workloads::LayerOp op) {
  switch (op) {
    case workloads::LayerOp::kReduceScatter:
      return CollectiveOp::kReduceScatter;
    case workloads::LayerOp::kAllGather:
      return CollectiveOp::kAllGather;
    case workloads::LayerOp::kAllToAll:
      return CollectiveOp::kAllToAll;
    default:
      return CollectiveOp::kAllReduce;
  }
}

}  // namespace systole::models
