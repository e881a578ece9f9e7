#pragma once
// Parallel mappings of a workload over the chips of a slice, as the compiler sees them: what
// ONE chip computes (every chip of an SPMD role computes the same shapes on its own data) and
// the collectives inserted between its layers.
//
//  * tensor parallel (Megatron-LM: Shoeybi et al., "Megatron-LM: Training Multi-Billion
//    Parameter Language Models Using Model Parallelism", arXiv 1909.08053, §3): a GEMM whose
//    input is replicated is split by columns (n / T: QKV, MLP-up), its output stays sharded; a
//    GEMM whose input is sharded is split by rows (k / T: attention-out, MLP-down) and its
//    partial sums are all-reduced over the tensor group (an all_reduce layer inserted after
//    it); attention splits its heads (heads / T; K/V heads / T, or one replicated K/V head per
//    chip when there are fewer K/V heads than T); elementwise layers on sharded data split
//    their columns; a norm over sharded data first all-gathers it (not in Megatron's blocks);
//    conv2d and lstm layers are replicated.
//  * data parallel: the batch (GEMM rows, attention sequences, vector rows, conv images) is
//    split D ways. Inference only: no gradients, so no gradient all-reduce is inserted.
// Explicit collective layers of the workload pass through unchanged.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/ir/layer.h"

namespace systole::workloads {

/// How a slice's chips share the work.
struct ParallelDegrees {
  std::int64_t data = 1, tensor = 1, pipeline = 1;
};

/// One layer as each chip runs it.
struct ParallelLayer {
  Layer layer;            ///< per-chip shapes (collectives: S per chip, the group's axes)
  std::string split;      ///< for people: "column n/8", "row k/8 + all_reduce", "replicated"
  bool inserted = false;  ///< a collective the compiler inserted
  std::size_t source =
      0;  ///< index of the workload layer it comes from (inserted: the layer it serves)
};

/// The per-chip workload: layers (with inserted collectives) in program order.
struct ParallelPlan {
  std::vector<ParallelLayer> layers;
  std::vector<Layer> chip_layers() const;
};

/// Partitions `layers` (unfused) for `d` on a slice whose tensor group spans the torus axes
/// `tensor_axes`. Throws WorkloadError naming the layer when a dimension does not divide.
ParallelPlan partition(const std::vector<Layer>& layers, const ParallelDegrees& d,
                       const std::array<bool, 3>& tensor_axes);

/// Pipeline parallelism (GPipe: Huang et al., "GPipe: Efficient Training of Giant Neural
/// Networks using Pipeline Parallelism", arXiv 1811.06965, §2.2): the workload's layers are cut
/// into P contiguous stages, each run by its own chips, and the mini-batch into M micro-batches
/// that flow through the stages; a stage hands each micro-batch's activations to the next.

/// A stage: workload layers [first, end) and their MACs (macs() x repeat, summed).
struct StageRange {
  std::size_t first = 0, end = 0;
  std::uint64_t macs = 0;
};

/// Splits `layers` into `stages` contiguous, non-empty stages balanced by MACs: the split
/// minimises the largest stage's MACs (the pipeline's bottleneck); among splits that do, the
/// boundaries are as early as possible, chosen from the last one back (the last stage begins at
/// the earliest layer that keeps the optimum, then the one before it, ...).
/// A repeated layer (`repeat`) stays whole. Throws WorkloadError when there are fewer layers than
/// stages.
std::vector<StageRange> split_stages(const std::vector<Layer>& layers, std::int64_t stages);

/// One pipeline stage as each of its chips runs it for ONE micro-batch.
struct PipelineStage {
  StageRange range;              ///< its workload layers
  ParallelPlan plan;             ///< per chip, per micro-batch (collectives inserted)
  std::uint64_t send_bytes = 0;  ///< per chip per micro-batch to the next stage (0: last stage)
};

struct PipelinePlan {
  std::vector<PipelineStage> stages;
  std::int64_t microbatches = 1;
};

/// Partitions `layers` for `d` (d.pipeline stages) with `microbatches` micro-batches: the
/// whole workload is partitioned as partition() does with the batch split d.data x microbatches
/// ways (a micro-batch is 1/M of each data-parallel replica's batch: GEMM batch, else its rows;
/// attention sequences; vector rows; conv images), then cut at the boundaries split_stages()
/// gives (a collective the compiler inserted stays with the layer it serves). Each stage sends
/// the output of its last layer, as its chips hold it, to its peer chips of the next stage.
PipelinePlan partition_pipeline(const std::vector<Layer>& layers, const ParallelDegrees& d,
                                std::int64_t microbatches, const std::array<bool, 3>& tensor_axes);

/// The pipeline plan of a system's `system.parallel` section, checked as every system checks
/// it: too few layers for d.pipeline stages and data/tensor splits that do not divide are their
/// own WorkloadErrors (split_stages, partition); micro-batches that do not divide a replica's
/// batch are a ConfigError naming `system.parallel.microbatches`.
PipelinePlan checked_pipeline_plan(const std::vector<Layer>& layers, const ParallelDegrees& d,
                                   std::int64_t microbatches,
                                   const std::array<bool, 3>& tensor_axes);

/// Bytes of a layer's output as one chip holds it.
std::uint64_t output_bytes(const Layer& l);

/// Bytes a chip holds for a layer: its weights, its KV cache (attention: K and V of seq_kv
/// positions) and its activations (inputs read once and outputs written once).
struct LayerFootprint {
  std::uint64_t weights = 0, kv_cache = 0, activations = 0;
};
LayerFootprint footprint(const Layer& l);

/// Checks that every layer of `layers` (one device's share) fits `capacity` bytes with the
/// weights and KV caches of all layers up to it; throws WorkloadError naming the layer, the
/// simulated `device` ("chip0", "gpu0"), who else holds the same (`holders`) and the sizes.
void check_memory(const std::vector<Layer>& layers, std::uint64_t capacity,
                  const std::string& device, const std::string& holders);

}  // namespace systole::workloads
