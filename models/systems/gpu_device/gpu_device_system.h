#pragma once
// System kind "gpu_device": one GPU (A100- or H100-class) simulated through SystemC: the GPU
// compiler (workloads/lowering/gpu_lowering.h) turns the workload into kernels, the device
// (gpu_device_module.h) runs them in one stream under one sc_start.

#include "models/systems/gpu_device/gpu_device_config.h"
#include "models/systems/system.h"
#include "sim/registry/registry.h"
#include "workloads/lowering/gpu_lowering.h"

namespace systole::models {

/// The `system:` section of kind gpu_device: the device and the GPU mapping choices.
struct GpuSystemConfig {
  GpuDeviceConfig device;
  workloads::GpuMappingOptions mapping;
  /// Passes of the whole kernel stream simulated before the measured one (not reported), so
  /// the L2 holds what back-to-back benchmark calls leave in it and, under the power model, the
  /// clock is the one the previous pass's simulated power allows (PowerSettler); 0: the
  /// measured pass starts with an empty L2 at the estimate's clock.
  std::int64_t warmup = 0;
  static const config::SchemaOf<GpuSystemConfig>& schema();
};

class GpuDeviceSystem : public System {
 public:
  explicit GpuDeviceSystem(GpuSystemConfig cfg) : cfg_(std::move(cfg)) {}
  void check(const workloads::Workload& w) const override;
  std::string plan(const workloads::Workload& w) const override;
  stats::PointResult run(const workloads::Workload& w, const RunOptions& opt) override;
  Peaks peaks() const override;
  workloads::GpuProgram compile(const workloads::Workload& w) const;

 private:
  GpuSystemConfig cfg_;
};

struct GpuKernelRun;

/// The device at the clock its power limit allows for `layers` (boost_clock > 0, gpu_power.h)
/// and the program compiled at that clock, as gpu_device runs it.
struct GpuSettledProgram {
  GpuDeviceConfig device;
  workloads::GpuProgram program;
};
GpuSettledProgram compile_settled(const GpuSystemConfig& cfg,
                                  const std::vector<workloads::Layer>& layers);

/// One layer's row of gpu_device's layers table and its totals over every repeat; a multi-GPU
/// system adds `extra_cycles` per repeat (its collectives' time) to the kernels' cycles.
struct GpuLayerRow {
  stats::Record record;
  double cycles = 0, macs = 0, hbm_bytes = 0, compute_bound_cycles = 0;
};
GpuLayerRow gpu_layer_row(const GpuDeviceConfig& d, const workloads::GpuProgram& p,
                          const workloads::GpuLayerPlan& lp, const std::vector<GpuKernelRun>& runs,
                          double extra_cycles = 0);

/// Registers gpu_device and its component kinds (gpu_sm, l2).
void register_gpu_device(Registry& r);

}  // namespace systole::models
