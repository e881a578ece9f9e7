#pragma once
// The `system:` section of an experiment whose kind is tpu_chip: the chip and how the compiler
// maps layers onto it.

#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "workloads/mapping/mapping_options.h"

namespace systole::models {

/// The `system:` section of an experiment whose kind is tpu_chip.
struct TpuSystemConfig {
  TpuChipConfig chip;
  workloads::MappingOptions mapping;
  static const config::SchemaOf<TpuSystemConfig>& schema();
};

/// Refuses mapping choices the chip cannot honour (tiled weights without a weight FIFO):
/// `n` is the system section holding `mapping`, `p` its path.
void check_mapping_on_chip(const TpuChipConfig& chip, const workloads::MappingOptions& mapping,
                           const config::Node& n, const std::string& p);

}  // namespace systole::models
