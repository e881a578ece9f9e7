#pragma once
// The node's collectives on its NVSwitch network, plain C++ (picoseconds): each collective is
// NCCL's message schedule (models/nvlink: algorithm, protocol, channels, NVLS as NCCL chooses)
// for every group of the node at once (the group of every GPU, or the node split into groups of
// `group_size` consecutive GPUs, all running side by side), played from its start time on the
// one network model of the node (flow level or packet level, every GPU's up and down trunk)
// until its last message has arrived. The network keeps its link counters from collective to
// collective. Fidelity: one collective at a time; the node's links carry nothing else.

#include <memory>
#include <vector>

#include "models/nvlink/nccl_collective.h"
#include "models/nvlink/nvlink_network.h"
#include "workloads/ir/layer.h"

namespace systole::models {

/// One collective as the node ran it.
struct NodeCollectiveRun {
  NcclSpec spec;
  NcclResult result;   ///< NCCL's choice; time, algbw, busbw, alpha-beta
  int group_size = 0;  ///< GPUs per group
  std::uint64_t begin_ps = 0, end_ps = 0;
  std::vector<std::uint64_t> link_bytes;  ///< what it put on each trunk (by LinkId)
};

class NodeCollectives {
 public:
  explicit NodeCollectives(const NvlinkConfig& c);
  /// Runs `spec` over groups of `group_size` GPUs (dividing the node's) from `t0` (not before
  /// the last collective's end) on the idle network; returns its record.
  NodeCollectiveRun run(const NcclSpec& spec, int group_size, std::uint64_t t0);
  const NvlinkConfig& config() const { return cfg_; }
  const NvSwitchRoutes& routes() const { return routes_; }
  const IciNetwork& network() const { return *net_; }

 private:
  NvlinkConfig cfg_;
  NvSwitchRoutes routes_;
  std::unique_ptr<IciNetwork> net_;
};

/// The collective `op` of a layer as NCCL sees it (LayerOp::kAllReduce, ...).
CollectiveOp nccl_op_of(workloads::LayerOp op);

}  // namespace systole::models
