#pragma once
// The warp-level reference of the GEMM CTA main loop on 1..N SMs: every warp of every resident
// CTA runs its instruction stream (warp_program.h) cycle by cycle; each sub-partition's warp
// scheduler issues at most one instruction per clock; mma.sync / wgmma occupy the
// sub-partition's tensor pipe, ldmatrix its share of the shared-memory banks, epilogue math its
// FP32 and SFU lanes; scoreboards track fragments, accumulators and wgmma groups; barriers and
// mbarriers follow the copies the GmemPort answers. With operands given, every mma computes its
// real result (tensor_math.h). Slow (every cycle, every warp) and obvious; the tile-level model
// must match its record exactly. Scheduling rules: README.md "Rules".

#include <vector>

#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_sm_run.h"

namespace systole::models {

/// Warp-level reference of the GEMM main loop on 1..N SMs: every warp, every cycle, real
/// tensor-core arithmetic on request. Key simplification: README rule 2.
class GpuSmWarpModel {
 public:
  GpuSmWarpModel(const GpuSmConfig& c, GmemPort& port) : cfg_(c), port_(port) {}

  /// Runs the launch; with `ops`, computes each CTA's accumulators into `results` (by launch
  /// order). Throws SimError if the CTAs stop making progress (a rule bug), ConfigError for a
  /// tile the SM cannot run.
  GemmRun run(const GemmLaunch& launch, const GemmOperands* ops = nullptr,
              std::vector<CtaResult>* results = nullptr);

 private:
  const GpuSmConfig& cfg_;
  GmemPort& port_;
};

}  // namespace systole::models
