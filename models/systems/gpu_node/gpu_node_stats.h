#pragma once
// The gpu_node's results: gpu_device's layers table (gpu0's kernels; a collective layer's
// cycles are its time on the node) with the communication columns added — collective time,
// bytes, nccl-tests algbw and busbw, alpha-beta time, exposed time (collective time during
// which gpu0 ran no kernel), NCCL's algorithm/protocol/channels — the run's metrics, and two
// tables: one row per NVLink trunk (bytes, busy time, utilisation), one per collective.

#include <vector>

#include "models/systems/gpu_device/gpu_device_module.h"
#include "models/systems/gpu_node/gpu_node_system.h"
#include "sim/stats/result.h"

namespace systole::models {

/// What a run produced, for the writer.
struct NodeRunView {
  const GpuNodeConfig& cfg;
  const GpuNodeProgram& program;
  const GpuDeviceConfig& device;  ///< at the clock the run used
  const workloads::GpuProgram& kernels;
  const std::vector<GpuKernelRun>& kernel_runs;
  const std::vector<NodeCollectiveRun>& collectives;  ///< in program order
  const NodeCollectives& node;
  double run_seconds = 0;  ///< the run's time when it is not the layers' sum (pipelines)
};

/// Fills `res`'s layers, metrics and unit tables.
void write_node_results(const NodeRunView& v, stats::PointResult& res);

/// One pipeline stage of a run (seconds; bytes and MACs per GPU).
struct PipelineStageFigures {
  int first_gpu = 0, gpus = 0;
  double busy_s = 0;  ///< from the start to its last kernel or collective, less its input waits
  double idle_s = 0;  ///< the run's time less busy_s
  std::size_t layers = 0;
  double macs = 0, weights = 0;       ///< per GPU: MACs of all micro-batches, weight bytes
  double send_bytes = 0, send_s = 0;  ///< its hand-offs, summed
  double sm_clock = 0;                ///< the clock its GPUs settled at
};
struct PipelineFigures {
  std::vector<PipelineStageFigures> stages;
  std::int64_t microbatches = 1;
  double seconds = 0;
  /// The fraction of stage-time idle: sum of idle / (stages x time).
  double bubble() const;
};

/// Adds a pipelined run's metrics (pipeline_bubble, its GPipe formula, p2p_bytes, p2p_time) and
/// the table `pipeline_stages` to `res`.
void write_pipeline_results(const PipelineFigures& f, stats::PointResult& res);

}  // namespace systole::models
