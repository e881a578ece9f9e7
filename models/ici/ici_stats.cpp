#include "models/ici/ici_stats.h"

#include <algorithm>

namespace systole::models {

namespace {

using stats::ColumnType;
using stats::StatScope;

stats::StatInfo run_stat(const char* name, const char* unit, const char* desc,
                         ColumnType t = ColumnType::kInt) {
  return ici_run_stat(name, unit, desc, t);
}

/// Busy time over the run's span (0 before the run has a span).
double utilisation(double busy_ps, const stats::Timebase& tb) {
  const double span = tb.span_ps(stats::kRun);
  return span > 0 ? busy_ps / span : 0.0;
}

void declare_collective(stats::StatGroup& g, std::size_t i, const IciStatsSource& src) {
  const auto rec = [src, i]() -> const IciCollectiveRecord& { return src.collectives().at(i); };
  g.formula(run_stat("op", "", "all_reduce, reduce_scatter, all_gather or all_to_all",
                     ColumnType::kString),
            [rec](std::size_t) { return std::string(collective_op_name(rec().spec.op)); });
  g.formula(
      run_stat("algorithm", "", "ring, bidir_ring or torus", ColumnType::kString),
      [rec](std::size_t) { return std::string(collective_algorithm_name(rec().spec.algorithm)); });
  g.formula(run_stat("bytes", "B", "S per chip, as nccl-tests defines it"),
            [rec](std::size_t) { return static_cast<std::int64_t>(rec().spec.bytes); });
  declare_collective_result(g, [rec]() -> const CollectiveResult& { return rec().result; });
}

}  // namespace

stats::StatInfo ici_run_stat(const char* name, const char* unit, const char* desc,
                             stats::ColumnType t) {
  return {name, unit, desc, t, StatScope::kRunOnly};
}

void declare_ici_link_stats(stats::StatGroup& g, LinkId l, IciStatsSource src,
                            const stats::Timebase& tb) {
  g.formula(run_stat("bytes", "B", "bytes the link carried, one direction"), [src, l](std::size_t) {
    return static_cast<std::int64_t>(src.network().link_bytes()[l]);
  });
  g.formula(run_stat("busy_cycles", "cycles", "cycles the link was sending"),
            [src, l, &tb](std::size_t) { return tb.cycles(src.network().link_busy_ps(l)); });
  g.formula(run_stat("utilization", "", "busy cycles / run cycles", ColumnType::kFloat),
            [src, l, &tb](std::size_t) { return utilisation(src.network().link_busy_ps(l), tb); });
}

void declare_collective_result(stats::StatGroup& g, std::function<const CollectiveResult&()> res) {
  g.formula(run_stat("group_size", "", "chips per group"),
            [res](std::size_t) { return static_cast<std::int64_t>(res().group_size); });
  g.formula(run_stat("time", "s", "first message offered to last arrival", ColumnType::kFloat),
            [res](std::size_t) { return res().time_s; });
  g.formula(run_stat("algbw", "B/s", "S / time (nccl-tests)", ColumnType::kFloat),
            [res](std::size_t) { return res().algbw; });
  g.formula(
      run_stat("busbw", "B/s", "algbw x the op's bus factor (nccl-tests)", ColumnType::kFloat),
      [res](std::size_t) { return res().busbw; });
  g.formula(run_stat("formula_time", "s", "alpha-beta time of the algorithm on an idle network",
                     ColumnType::kFloat),
            [res](std::size_t) { return res().formula_s; });
}

std::string ici_link_name(LinkId l) {
  const int port = IciTopology::link_port(l);
  return "c" + std::to_string(IciTopology::link_source(l)) + "_" + "xyz"[port / 2] +
         (port % 2 == 0 ? "p" : "m");
}

void declare_ici_stats(stats::StatGroup& g, const IciTopology& topo, IciStatsSource src,
                       const stats::Timebase& tb) {
  std::vector<LinkId> links;
  for (LinkId l = 0; l < static_cast<LinkId>(topo.link_slots()); ++l)
    if (topo.has_link(IciTopology::link_source(l), IciTopology::link_port(l))) links.push_back(l);
  g.formula(run_stat("links", "", "directed links of the slice"),
            [n = links.size()](std::size_t) { return static_cast<std::int64_t>(n); });
  g.formula(run_stat("bytes", "B", "bytes carried, summed over links (a byte counts per hop)"),
            [src](std::size_t) {
              std::uint64_t b = 0;
              for (std::uint64_t x : src.network().link_bytes()) b += x;
              return static_cast<std::int64_t>(b);
            });
  g.formula(
      run_stat("max_link_utilization", "", "the busiest link's utilization", ColumnType::kFloat),
      [src, links, &tb](std::size_t) {
        double m = 0;
        for (LinkId l : links) m = std::max(m, src.network().link_busy_ps(l));
        return utilisation(m, tb);
      });
  g.formula(run_stat("mean_link_utilization", "", "utilization averaged over the links",
                     ColumnType::kFloat),
            [src, links, &tb](std::size_t) {
              double s = 0;
              for (LinkId l : links) s += src.network().link_busy_ps(l);
              return links.empty() ? 0.0 : utilisation(s / links.size(), tb);
            });
  g.formula(run_stat("collectives", "", "collectives run"),
            [src](std::size_t) { return static_cast<std::int64_t>(src.collectives().size()); });
  for (LinkId l : links) declare_ici_link_stats(g.group(ici_link_name(l), "ici_link"), l, src, tb);
  for (std::size_t i = 0; i < src.collectives().size(); ++i)
    declare_collective(g.group("collective" + std::to_string(i), "collective"), i, src);
}

}  // namespace systole::models
