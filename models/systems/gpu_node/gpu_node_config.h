#pragma once
// The `system:` section of an experiment whose kind is gpu_node: N identical GPUs (`gpu`, the
// gpu_device schema: device and mapping) on one NVLink/NVSwitch fabric (`nvlink`,
// models/nvlink), and how the compiler spreads the workload over them (`parallel`).

#include <cstdint>

#include "models/nvlink/nvlink_config.h"
#include "models/systems/gpu_device/gpu_device_system.h"
#include "sim/config/node.h"
#include "workloads/mapping/parallel_plan.h"

namespace systole::models {

/// `system.parallel` of a GPU node: data x tensor x pipeline = the node's GPUs.
struct GpuParallelConfig {
  std::int64_t data = 0;  ///< 0: the GPUs left over, gpus / (tensor x pipeline)
  std::int64_t tensor = 1;
  std::int64_t pipeline = 1;
  std::int64_t microbatches = 1;  ///< GPipe micro-batches per data-parallel replica
  static const config::SchemaOf<GpuParallelConfig>& schema();
};

struct GpuNodeConfig {
  GpuSystemConfig gpu;
  NvlinkConfig nvlink;
  GpuParallelConfig parallel;
  static const config::SchemaOf<GpuNodeConfig>& schema();

  /// The parallel degrees, data resolved (valid after loading).
  workloads::ParallelDegrees degrees() const;
};

/// `system.gpu` may be a gpu_device system file (`gpu: {base: h100_sxm5.yaml}`, whose content
/// sits under its own `system:` key): returns `system` with that key's content (less `kind`)
/// moved up into `gpu`, the keys written beside it merged on top. Anything else is unchanged.
config::Node unwrap_gpu_file(const config::Node& system);

}  // namespace systole::models
