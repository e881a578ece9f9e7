#pragma once
// Runs a GEMM launch on the model the SM config names (gpu_sm.model: tile or warp). Plain C++.

#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_sm_run.h"

namespace systole::models {

/// The launch on `c.model`'s model; both give the same record (README "Fidelity and speed").
GemmRun run_gemm_launch(const GpuSmConfig& c, GmemPort& port, const GemmLaunch& launch);

}  // namespace systole::models
