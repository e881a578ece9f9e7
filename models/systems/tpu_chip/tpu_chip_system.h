#pragma once
// System kind "tpu_chip": one TPU-class chip simulated through SystemC.

#include "models/systems/system.h"
#include "models/systems/tpu_chip/tpu_system_config.h"
#include "sim/registry/registry.h"
#include "sim/stats/timebase.h"
#include "workloads/lowering/compile.h"
#include "workloads/mapping/layer_plan.h"

namespace systole::models {

class TpuChipSystem : public System {
 public:
  explicit TpuChipSystem(TpuSystemConfig cfg) : cfg_(std::move(cfg)) {}
  void check(const workloads::Workload& w) const override;
  std::string plan(const workloads::Workload& w) const override;
  stats::PointResult run(const workloads::Workload& w, const RunOptions& opt) override;
  Peaks peaks() const override;
  const TpuSystemConfig& config() const { return cfg_; }
  const workloads::MappingOptions& mapping() const { return cfg_.mapping; }
  /// The workload's layers as the chip runs them (elementwise layers fused into GEMMs when
  /// system.mapping.fusion is epilogue).
  std::vector<workloads::Layer> layers(const workloads::Workload& w) const;
  /// The workload compiled for this chip (lowered layer by layer; run() links it).
  workloads::CompiledWorkload compile(const workloads::Workload& w) const;

 private:
  TpuSystemConfig cfg_;
};

class TpuChipModule;
/// Gives the MXUs of each TensorCore of `top` one shared VMEM read port (vmem.bandwidth).
void share_vmem_ports(TpuChipModule& top);
/// Converts the events of `t` from picoseconds (as units record them) to `tb`'s cycles.
void trace_ps_to_cycles(stats::Trace& t, const stats::Timebase& tb);

/// Registers tpu_chip and the component kinds it is built from (mxu, vmem, cmem, hbm, dma).
void register_tpu_chip(Registry& r);

}  // namespace systole::models
