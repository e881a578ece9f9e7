#pragma once
// The tile-level GEMM main-loop model (the default): the same rules as the warp-level
// reference (README.md "Rules"), but time advances by events, one per warp section (a k-tile's
// copies, fragment loads and mma.sync; a k-tile's wgmma group; a barrier release; a TMA issue;
// the epilogue), each timed in closed form from the sub-partition's pipe and bank state:
// per k-step, first mma = max(previous issue + 1, pipe free, fragments landed, the k-step
// before + mma latency), then back to back every mma_ii cycles. Gives the reference's cycles
// exactly (tests/unit/gpu_sm/test_warp_vs_tile.cpp), without the per-cycle, per-warp loop.

#include <memory>

#include "models/gpu_sm/gmem_port.h"

#include "models/gpu_sm/gpu_sm_run.h"

namespace systole::models {

/// The tile-level model, one event at a time: for a driver whose port answers late (the GPU
/// device's SystemC shell over L2 and HBM, models/gpu_sm/gpu_sm_module.h). The driver calls
/// step() while the next event is no later than what it knows of the memory (every answer up
/// to that cycle delivered through arrived()); with a port that always answers at once,
/// stepping until next_time() is kNone is GpuSmTileModel::run.
class GpuSmTileStepper {
 public:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  GpuSmTileStepper(const GpuSmConfig& c, GmemPort& port, const GemmLaunch& launch);
  ~GpuSmTileStepper();
  GpuSmTileStepper(const GpuSmTileStepper&) = delete;
  GpuSmTileStepper& operator=(const GpuSmTileStepper&) = delete;

  /// Cycle of the next event, or kNone (the launch is over once pending() is 0 too).
  std::uint64_t next_time() const;
  /// Requests answered kGmemPending and not yet arrived().
  std::size_t pending() const;
  /// Handles the next event (requests it issues go to the port).
  void step();
  /// The late answer to request `token`: its data landed (or its store completed) at `cycle`.
  void arrived(std::uint64_t token, std::uint64_t cycle);
  /// The record, once nothing is left.
  GemmRun finish();

  class Fast;

 private:
  std::unique_ptr<Fast> fast_;
};

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
