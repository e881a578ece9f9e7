#pragma once
// System kind "gpu_node": an NVLink/NVSwitch node of identical GPUs (HGX A100 / H100 8-GPU),
// simulated under one sc_start with SPMD symmetry as tpu_pod does: the compiler partitions the
// workload (data and tensor parallel, workloads/mapping/parallel_plan.h) so every GPU runs the
// same kernels on its own data; those kernels run once, on a representative GPU (`gpu0`: SMs,
// L2, HBM, models/systems/gpu_device), while each collective runs on the whole node's network
// (every GPU's NVLink trunks and the NVSwitch fabric, models/nvlink) as NCCL would run it. The
// GPU's next kernel waits for the collective (one stream, as Megatron's tensor-parallel
// all-reduces run). Per-GPU memory (weights, KV cache, activations) is checked against HBM.
// With parallel.pipeline > 1, one GPU per GPipe stage is simulated (gpu_node_pipeline.cpp).

#include <string>
#include <vector>

#include "models/systems/gpu_node/gpu_node_config.h"
#include "models/systems/gpu_node/node_collectives.h"
#include "models/systems/system.h"
#include "sim/registry/registry.h"
#include "workloads/mapping/parallel_plan.h"

namespace systole::models {

/// Where a collective of the per-GPU program runs: before which kernel, over how many GPUs.
struct NodeCollectiveSlot {
  std::size_t layer = 0;   ///< index in the per-GPU layers
  std::size_t kernel = 0;  ///< runs before this kernel (the kernel count: after the last)
  int group_size = 0;
  NcclSpec spec;
};

/// The per-GPU program: the partitioned layers, the GPU kernels of the compute layers and the
/// collectives between them.
struct GpuNodeProgram {
  workloads::ParallelPlan plan;
  std::vector<workloads::Layer> compute;  ///< the compute layers, in order
  std::vector<std::size_t> compute_of;    ///< per-GPU layer -> index in compute (or npos)
  std::vector<NodeCollectiveSlot> collectives;
};

/// The per-GPU program of a partitioned plan; a collective layer of the workload whose group is
/// `all` runs over `group_gpus` GPUs (the node, or a pipeline stage's GPUs). Throws
/// WorkloadError for a group a node does not have or a torus algorithm.
GpuNodeProgram node_program(workloads::ParallelPlan plan, const workloads::ParallelDegrees& d,
                            int group_gpus);

/// Sets each collective's place in a GPU's stream: after the kernels of the layers before it.
void place_collectives(GpuNodeProgram& np, const workloads::GpuProgram& prog);

class GpuNodeSystem : public System {
 public:
  explicit GpuNodeSystem(GpuNodeConfig cfg) : cfg_(std::move(cfg)) {}
  void check(const workloads::Workload& w) const override;
  std::string plan(const workloads::Workload& w) const override;
  stats::PointResult run(const workloads::Workload& w, const RunOptions& opt) override;
  Peaks peaks() const override;
  const GpuNodeConfig& config() const { return cfg_; }

  /// What one GPU runs (collectives' kernel positions not yet set); throws WorkloadError when
  /// a layer does not split, does not fit a GPU's HBM, or names a group a node does not have.
  GpuNodeProgram partition(const workloads::Workload& w) const;

 private:
  /// Pipeline parallelism (parallel.pipeline > 1, gpu_node_pipeline.cpp).
  workloads::PipelinePlan pipeline_plan(const workloads::Workload& w) const;
  /// Stage `s`'s per-GPU program for one micro-batch; checks the stage fits a GPU's HBM.
  GpuNodeProgram stage_program(const workloads::PipelinePlan& p, std::size_t s) const;
  std::string plan_pipeline(const workloads::Workload& w) const;
  stats::PointResult run_pipeline(const workloads::Workload& w, const RunOptions& opt);
  /// --plan's table of one per-GPU program's layers and collectives.
  std::string layer_table(const GpuNodeProgram& np) const;

  GpuNodeConfig cfg_;
};

/// Registers gpu_node.
void register_gpu_node(Registry& r);

}  // namespace systole::models
