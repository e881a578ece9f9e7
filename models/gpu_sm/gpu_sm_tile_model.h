#pragma once
// The tile-level GEMM main-loop model (the default): the same rules as the warp-level
// reference (README.md "Rules"), but time advances by events, one per warp section (a k-tile's
// copies, fragment loads and mma.sync; a k-tile's wgmma group; a barrier release; a TMA issue;
// the epilogue), each timed in closed form from the sub-partition's pipe and bank state:
// per k-step, first mma = max(previous issue + 1, pipe free, fragments landed, the k-step
// before + mma latency), then back to back every mma_ii cycles. Gives the reference's cycles
// exactly (tests/unit/gpu_sm/test_warp_vs_tile.cpp), without the per-cycle, per-warp loop.

#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_sm_run.h"

namespace systole::models {

/// Tile-level GEMM main loop on 1..N SMs: one closed-form event per warp section (the
/// default; equals GpuSmWarpModel's record exactly). Key simplification: README rule 2.
class GpuSmTileModel {
 public:
  GpuSmTileModel(const GpuSmConfig& c, GmemPort& port) : cfg_(c), port_(port) {}
  /// Runs the launch; throws ConfigError for a tile the SM cannot run.
  GemmRun run(const GemmLaunch& launch);

 private:
  const GpuSmConfig& cfg_;
  GmemPort& port_;
};

}  // namespace systole::models
