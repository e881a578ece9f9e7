#pragma once
// The stats of one SM running GEMM main loops, bound into the stats tree from the run record
// both SM models produce (SmActivity): instruction counts per pipe, tensor-pipe busy cycles
// and the utilisations derived from them. Run scope only: per-layer attribution comes with the
// GPU device, which runs many kernels. Plain C++.

#include <cstdint>
#include <functional>

#include "models/gpu_sm/gpu_sm_run.h"
#include "sim/stats/stats_tree.h"

namespace systole::models {

/// Reads an SM's activity and the cycles it spans (its kernel's length) when a writer asks.
struct SmActivitySource {
  std::function<SmActivity()> activity;
  std::function<std::uint64_t()> cycles;
};

/// Declares one SM's stats in `g` (kind "gpu_sm"); `sub_partitions` scales the per-pipe
/// utilisations.
void declare_gpu_sm_stats(stats::StatGroup& g, SmActivitySource src, std::int64_t sub_partitions);

}  // namespace systole::models
