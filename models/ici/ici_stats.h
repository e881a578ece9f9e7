#pragma once
// The ICI network's stats, bound into the stats tree: per directed link its bytes, busy cycles
// and utilisation (group `<chip>_<port>`, kind ici_link, e.g. c12_xp for chip 12's +x link),
// per collective its time, nccl-tests bandwidths and alpha-beta time (group collective<i>,
// kind collective), and run totals in the network's own group. Whole-run values only: the
// network is not yet attributed to workload layers.

#include <functional>
#include <string>
#include <vector>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_network.h"
#include "sim/stats/stats_tree.h"
#include "sim/stats/timebase.h"

namespace systole::models {

/// A collective that ran on the network.
struct IciCollectiveRecord {
  CollectiveSpec spec;
  CollectiveResult result;
  double start_ps = 0;
};

/// Where the stats read their values when a writer visits them.
struct IciStatsSource {
  std::function<const IciNetwork&()> network;
  std::function<const std::vector<IciCollectiveRecord>&()> collectives;
};

/// A link's group name: c<chip>_<axis><p|m> ("c12_xp": chip 12's +x link).
std::string ici_link_name(LinkId l);

/// A whole-run stat's description (the network's stats are not per layer yet).
stats::StatInfo ici_run_stat(const char* name, const char* unit, const char* desc,
                             stats::ColumnType t = stats::ColumnType::kInt);

/// Declares one directed link's stats in `g`: bytes, busy cycles, utilisation.
void declare_ici_link_stats(stats::StatGroup& g, LinkId l, IciStatsSource src,
                            const stats::Timebase& tb);
/// Declares a collective's measured figures in `g`: group size, time, algbw, busbw, formula.
void declare_collective_result(stats::StatGroup& g, std::function<const CollectiveResult&()> res);

/// Declares the network's stats in `g` (its group, kind ici): totals, one group per existing
/// link of `topo`, and one per collective recorded so far (declare after the run).
void declare_ici_stats(stats::StatGroup& g, const IciTopology& topo, IciStatsSource src,
                       const stats::Timebase& tb);

}  // namespace systole::models
