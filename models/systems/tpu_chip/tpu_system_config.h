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

}  // namespace systole::models
