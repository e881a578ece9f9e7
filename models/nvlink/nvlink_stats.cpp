#include "models/nvlink/nvlink_stats.h"

#include <algorithm>
#include <string>

namespace systole::models {

namespace {

using stats::ColumnType;

stats::StatInfo run_stat(const char* name, const char* unit, const char* desc,
                         ColumnType t = ColumnType::kInt) {
  return ici_run_stat(name, unit, desc, t);
}

void declare_collective(stats::StatGroup& g, std::size_t i, const NvlinkStatsSource& src) {
  const auto rec = [src, i]() -> const NvlinkCollectiveRecord& { return src.collectives().at(i); };
  const auto text = [&g](const char* name, const char* desc, auto get) {
    g.formula(run_stat(name, "", desc, ColumnType::kString),
              [get](std::size_t) { return std::string(get()); });
  };
  text("op", "all_reduce, reduce_scatter, all_gather or all_to_all",
       [rec] { return collective_op_name(rec().spec.op); });
  text("algorithm", "NCCL's algorithm: ring, nvls or direct",
       [rec] { return nccl_algorithm_name(rec().result.choice.algorithm); });
  text("protocol", "NCCL's protocol: LL, LL128 or Simple",
       [rec] { return nccl_protocol_name(rec().result.choice.protocol); });
  g.formula(run_stat("channels", "", "NCCL channels"),
            [rec](std::size_t) { return static_cast<std::int64_t>(rec().result.choice.channels); });
  g.formula(run_stat("bytes", "B", "S per GPU, as nccl-tests defines it"),
            [rec](std::size_t) { return static_cast<std::int64_t>(rec().spec.bytes); });
  declare_collective_result(g, [rec]() -> const CollectiveResult& { return rec().result.result; });
}

}  // namespace

void declare_nvlink_stats(stats::StatGroup& g, const NvSwitchRoutes& routes, NvlinkStatsSource src,
                          const stats::Timebase& tb) {
  IciStatsSource links;
  links.network = src.network;
  const int n = routes.gpus();
  g.formula(run_stat("gpus", "", "GPUs on the fabric"),
            [n](std::size_t) { return static_cast<std::int64_t>(n); });
  g.formula(run_stat("bytes", "B", "bytes the GPUs sent into the fabric (up trunks)"),
            [src, n](std::size_t) {
              std::uint64_t b = 0;
              for (int i = 0; i < n; ++i) b += src.network().link_bytes()[static_cast<LinkId>(i)];
              return static_cast<std::int64_t>(b);
            });
  g.formula(run_stat("collectives", "", "collectives run"),
            [src](std::size_t) { return static_cast<std::int64_t>(src.collectives().size()); });
  for (int i = 0; i < n; ++i) {
    const auto gpu = static_cast<ChipId>(i);
    const std::string name = "g" + std::to_string(i);
    declare_ici_link_stats(g.group(name + "_up", "nvlink_link"), routes.up(gpu), links, tb);
    declare_ici_link_stats(g.group(name + "_down", "nvlink_link"), routes.down(gpu), links, tb);
  }
  for (std::size_t i = 0; i < src.collectives().size(); ++i)
    declare_collective(g.group("collective" + std::to_string(i), "nccl_collective"), i, src);
}

}  // namespace systole::models
