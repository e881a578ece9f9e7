#pragma once
// The instruction stream of every warp of a GEMM CTA, as the warp-level reference executes it:
// a list of sections, each opened by a wait (CTA launch, __syncthreads + cp.async.wait_group,
// an mbarrier's full or empty phase, wgmma.wait_group, the accumulators) and followed by
// instructions that issue one per cycle, stalling only on their own pipes and scoreboards.
// Plain C++; see README.md "Warp programs" for the sequences.

#include <cstdint>
#include <vector>

#include "models/gpu_sm/gpu_cta_tile.h"

namespace systole::models {

enum class WarpOp : std::uint8_t {
  kCpAsync,   ///< cp.async.cg 16 B per thread (global -> shared, asynchronous)
  kLdmatrix,  ///< ldmatrix.x4: 512 B of fragments from shared memory
  kMma,       ///< mma.sync m16n8kK on the sub-partition's tensor pipe
  kBarSync,   ///< bar.sync (__syncthreads) arrival
  kTma,       ///< cp.async.bulk.tensor (TMA) of one operand tile
  kWgmma,     ///< wgmma.mma_async m64nNkK (this warp's 16 rows)
  kArrive,    ///< mbarrier.arrive on a stage's empty barrier
  kFp32,      ///< an FP32-lane instruction of the epilogue
  kSfu,       ///< an SFU instruction of the epilogue
  kStore,     ///< st.global.v4 of the output tile
};

/// Why a section may not start yet.
enum class WarpWait : std::uint8_t {
  kLaunch,     ///< the CTA has launched
  kBarrier,    ///< __syncthreads of k-tile kt released and its stage landed (cp.async.wait_group)
  kFull,       ///< the stage of k-tile kt landed (mbarrier full phase, TMA transaction count)
  kGroupDone,  ///< this warp's wgmma group of k-tile kt completed (wgmma.wait_group)
  kEmpty,      ///< the stage slot of k-tile kt is free: consumers released k-tile kt - stages
  kAccum,      ///< every accumulator of this warp is written (last mma.sync + latency)
};

/// One warp instruction of the main loop, with what its scoreboards and barriers need.
struct WarpInstr {
  WarpOp op = WarpOp::kMma;
  bool first = false;  ///< ldmatrix: first of a k-step's fragment set
  bool last = false;   ///< cp.async / TMA: last of its k-tile; store: last of the warp
  std::int32_t kt = 0, step = 0, idx = 0;  ///< k-tile, k-step in it, mma / wgmma index
  std::int32_t buf = 0;  ///< ldmatrix / mma.sync: fragment buffer (k-steps alternate 0, 1)
};

/// A wait and the instructions that follow it until the next wait.
struct WarpSection {
  WarpWait wait = WarpWait::kLaunch;
  std::int32_t kt = 0;
  std::vector<WarpInstr> instrs;
};

/// The sections of warp `w` of CTA `c` (empty for the idle warps of a producer warpgroup).
std::vector<WarpSection> warp_program(const MainloopShape& s, const CtaWork& c, std::int64_t w);

}  // namespace systole::models
