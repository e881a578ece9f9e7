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

/// Registers gpu_device and its component kinds (gpu_sm, l2).
void register_gpu_device(Registry& r);

}  // namespace systole::models
