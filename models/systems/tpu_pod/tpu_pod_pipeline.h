#pragma once
// Pipeline parallelism on a TPU slice (system.parallel.pipeline > 1): the stages' chips, their
// per-micro-batch programs joined into one GPipe schedule per stage (Huang et al., "GPipe",
// arXiv 1811.06965, §2.2: stage s starts micro-batch j once stage s-1 has sent it and stage s
// has finished micro-batch j-1), and the figures a run reports per stage.

#include <string>
#include <utility>
#include <vector>

#include "models/ici/ici_topology.h"
#include "models/systems/tpu_pod/tpu_pod_config.h"
#include "workloads/lowering/compile.h"
#include "workloads/mapping/parallel_plan.h"

namespace systole::models {

/// The chips of each stage (chip-id order) and, for every chip of stage s < P-1, its peer in
/// stage s+1 (the same coordinates on every other axis).
struct StageChips {
  std::vector<std::vector<ChipId>> chips;
  std::vector<std::vector<std::pair<ChipId, ChipId>>> to_next;
  /// The chips of stage `s` as a mask over the slice.
  std::vector<bool> mask(std::size_t s, int slice_chips) const;
};
StageChips stage_chips(const IciTopology& topo, const std::array<bool, 3>& pipeline_axes,
                       std::int64_t stages);

/// Stage `stage` of `stages` for `micro` micro-batches: each micro-batch's copy of the compiled
/// layers (named `mb<j>.<layer>`), with a receive op on the stage's `p2p` unit before the
/// first (stage > 0: every op that reads the stage's input waits for it; its first weight loads
/// too unless per_micro.layer_overlap, which lets them stream in during the wait) and a send op of
/// `send_bytes` after the last (stage < stages-1: it waits for every op of that layer). The
/// program's units are those of `device` (`chip0` when compiled).
workloads::CompiledWorkload stage_schedule(const workloads::CompiledWorkload& per_micro,
                                           std::size_t stage, std::size_t stages,
                                           std::int64_t micro, std::uint64_t send_bytes);

/// Renames the program's devices: `chip0.` -> `<device>.`.
void rename_device(Program& p, const std::string& device);

/// Checks that stage `s`'s layers (one chip's, one micro-batch) fit a chip's HBM: the stage's
/// weights, the KV caches of all `micro` micro-batches and a layer's activations; throws
/// WorkloadError naming the stage, a chip of it, the layer and the sizes.
void check_stage_memory(const TpuChipConfig& chip, const std::vector<workloads::Layer>& layers,
                        std::size_t s, ChipId first_chip, std::int64_t micro);

/// Per-stage figures of a pipelined run (seconds; bytes per chip).
struct PipelineStageRun {
  double busy_s = 0;  ///< from the start to its last op, less its waits for the stage before
  double idle_s = 0;  ///< the run's time less busy_s
  double send_bytes = 0, send_s = 0, send_formula_s = 0;  ///< its hand-offs, summed
  std::size_t layers = 0;
  double macs = 0;     ///< per chip, all micro-batches
  double weights = 0;  ///< bytes per chip
};
struct PipelineRun {
  std::vector<PipelineStageRun> stages;
  double time_s = 0;
  std::int64_t microbatches = 1;
  /// The fraction of stage-time idle: sum of idle / (stages x time).
  double bubble() const;
};

}  // namespace systole::models
