#pragma once
// The NVLink node's stats, bound into the stats tree: per GPU its up and down trunks' bytes,
// busy cycles and utilisation (groups g<i>_up, g<i>_down, kind nvlink_link), per collective its
// NCCL algorithm, protocol and channels, time, nccl-tests bandwidths and alpha-beta time (group
// collective<i>, kind nccl_collective), and totals in the node's own group. Whole-run values.

#include <functional>
#include <vector>

#include "models/ici/ici_stats.h"
#include "models/nvlink/nccl_collective.h"

namespace systole::models {

/// A collective that ran on the node.
struct NvlinkCollectiveRecord {
  NcclSpec spec;
  NcclResult result;
};

/// Where the stats read their values when a writer visits them.
struct NvlinkStatsSource {
  std::function<const IciNetwork&()> network;
  std::function<const std::vector<NvlinkCollectiveRecord>&()> collectives;
};

/// Declares the node's stats in `g` (its group, kind nvlink): totals, the trunks of `routes`,
/// and one group per collective recorded so far (declare after the run).
void declare_nvlink_stats(stats::StatGroup& g, const NvSwitchRoutes& routes, NvlinkStatsSource src,
                          const stats::Timebase& tb);

}  // namespace systole::models
