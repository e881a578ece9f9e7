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
};

/// Fills `res`'s layers, metrics and unit tables.
void write_node_results(const NodeRunView& v, stats::PointResult& res);

}  // namespace systole::models
