#pragma once
// System kind "tpu_pod": a slice of identical TPU chips on the ICI network, simulated under one
// sc_start with SPMD symmetry: the compiler partitions the workload (data and tensor
// parallelism, workloads/mapping/parallel_plan.h) so every chip runs the same program on its
// own data; that program runs once, on a representative chip (`chip0`: its TensorCores, HBM,
// DMA, MXUs, vector units), while every collective runs on every link of the slice through the
// network model (models/ici). Per-chip memory (weights, KV cache, activations) is checked
// against the chip's HBM.

#include "models/systems/system.h"
#include "models/systems/tpu_pod/tpu_pod_config.h"
#include "sim/registry/registry.h"
#include "workloads/lowering/compile.h"
#include "workloads/mapping/parallel_plan.h"

namespace systole::models {

class TpuPodSystem : public System {
 public:
  explicit TpuPodSystem(TpuPodConfig cfg) : cfg_(std::move(cfg)) {}
  void check(const workloads::Workload& w) const override;
  std::string plan(const workloads::Workload& w) const override;
  stats::PointResult run(const workloads::Workload& w, const RunOptions& opt) override;
  Peaks peaks() const override;
  const TpuPodConfig& config() const { return cfg_; }

  /// What one chip runs: the workload partitioned, collectives inserted.
  workloads::ParallelPlan partition(const workloads::Workload& w) const;
  /// The per-chip program's layers, compiled (epilogues fused as system.mapping says); throws
  /// WorkloadError when a layer does not fit a chip's HBM.
  workloads::CompiledWorkload compile(const workloads::Workload& w) const;

  /// Pipeline parallelism (parallel.pipeline > 1): the stages, each chip's layers of one
  /// micro-batch and the hand-off bytes; a batch that parallel.microbatches does not divide is
  /// a ConfigError naming it.
  workloads::PipelinePlan pipeline_plan(const workloads::Workload& w) const;
  /// Stage `s`'s layers of one micro-batch compiled (fused as system.mapping says); throws
  /// WorkloadError when the stage does not fit a chip's HBM.
  workloads::CompiledWorkload compile_stage(const workloads::PipelinePlan& p, std::size_t s) const;

 private:
  stats::PointResult run_pipeline(const workloads::Workload& w, const RunOptions& opt);
  std::string plan_pipeline(const workloads::Workload& w) const;
  std::vector<workloads::Layer> chip_layers(const workloads::Workload& w) const;
  TpuPodConfig cfg_;
};

/// Checks that every layer of `layers` (one chip's) fits `chip`'s HBM with the weights and KV
/// caches of all layers up to it; throws WorkloadError naming the layer and the sizes.
void check_chip_memory(const TpuChipConfig& chip, const std::vector<workloads::Layer>& layers,
                       const std::string& slice);

/// A pod run's trace header: `chip`'s clock and the op kinds its units trace.
stats::Trace pod_trace(const TpuChipConfig& chip, bool enabled);

/// Registers tpu_pod.
void register_tpu_pod(Registry& r);

}  // namespace systole::models
