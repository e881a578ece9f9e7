#pragma once
// The SM clock gpu_device runs at under its power cap (gpu_power.h). Before any pass it comes
// from the mapper's estimate of each kernel (compile_settled); after a pass, from what that pass
// simulated (PowerSettler), as a board's power controller moves the clock between a benchmark's
// warm-up calls and its measured ones. The estimate overstates the tensor activity where the
// simulation runs slower than the mapper's main-loop bound, so it puts the clock too low there
// (tests/validation/gpu/README.md, "The power model's input").

#include <cstddef>
#include <memory>
#include <vector>

#include "models/systems/gpu_device/gpu_device_module.h"
#include "models/systems/gpu_device/gpu_device_system.h"
#include "models/systems/gpu_device/gpu_power.h"

namespace systole::models {

/// Each kernel's work as the mapper estimates it: MACs, SM-bound cycles (the chosen tile's main
/// loop; for attention its schedule's), HBM bytes (the mapper's; compulsory bytes for streaming
/// and attention kernels) and fixed costs, `repeat` times for repeated layers.
std::vector<KernelLoad> estimated_loads(const GpuDeviceConfig& d, const workloads::GpuProgram& p);

/// Each kernel's work as one simulated pass of `p` at d's clock did it (`runs` in kernel
/// order): the same MACs and fixed costs, SM-bound cycles = its simulated time less its launch
/// overhead and set-up, HBM bytes = what the L2 fetched and wrote back while it ran.
std::vector<KernelLoad> simulated_loads(const GpuDeviceConfig& d, const workloads::GpuProgram& p,
                                        const std::vector<GpuKernelRun>& runs);

/// Gives gpu_device its passes (GpuNextPass): pass 0 runs at the estimate's clock
/// (compile_settled); each later pass at the clock the pass before it allows by its simulated
/// power (simulated_loads), compiled again at that clock, with the device moved there. Pass p
/// runs instance p of the repeated layers (compile_gpu), so their weights are new to the L2.
/// Without the power model (boost_clock 0) and repeated layers every pass is the first one's.
class PowerSettler {
 public:
  PowerSettler(const GpuSystemConfig& cfg, const std::vector<workloads::Layer>& layers);
  /// The device and program of the latest pass given out.
  const GpuSettledProgram& current() const { return *passes_.back(); }
  /// Pass p, `previous` being pass p - 1's runs; moves `top` to a new clock when there is one.
  GpuPass next(std::size_t p, const std::vector<GpuKernelRun>& previous, GpuDeviceModule& top);

 private:
  const GpuSystemConfig& cfg_;
  const std::vector<workloads::Layer>& layers_;
  bool repeated_;  // a layer has repeat > 1: each pass compiles its own instance
  std::vector<std::unique_ptr<GpuSettledProgram>> passes_;  // kept: a pass reads its kernels
};

}  // namespace systole::models
