#pragma once
// The `system:` section of an experiment whose kind is tpu_pod: a slice of identical TPU chips
// (`chip`, the tpu_chip schema), the ICI network joining them (`ici`), how the compiler spreads
// the workload over them (`parallel`) and its per-chip mapping choices (`mapping`).

#include <array>
#include <cstdint>

#include "models/ici/ici_config.h"
#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "workloads/mapping/mapping_options.h"
#include "workloads/mapping/parallel_plan.h"

namespace systole::models {

/// `system.parallel`: data x tensor x pipeline = the slice's chips.
struct ParallelConfig {
  std::int64_t data = 0;  ///< 0: the chips left over, chips / (tensor x pipeline)
  std::int64_t tensor = 1;
  std::int64_t pipeline = 1;
  std::int64_t microbatches = 1;  ///< GPipe micro-batches per mini-batch (pipeline > 1)
  static const config::SchemaOf<ParallelConfig>& schema();
};

/// Which torus axes each parallel group spans: the tensor group takes the first set of whole axes
/// (in the order x, y, xy, z, xz, yz, xyz) whose sizes multiply to the tensor degree, so its
/// collectives run on neighbouring links; the pipeline stages the next such set of the axes
/// left (stage s: the chips whose coordinates on those axes, read as one number x first, are s);
/// the data group the axes left after both.
struct ParallelAxes {
  std::array<bool, 3> tensor{{false, false, false}};
  std::array<bool, 3> pipeline{{false, false, false}};
  std::array<bool, 3> data{{false, false, false}};
};

struct TpuPodConfig {
  TpuChipConfig chip;
  IciConfig ici;
  ParallelConfig parallel;
  workloads::MappingOptions mapping;
  static const config::SchemaOf<TpuPodConfig>& schema();

  /// The parallel degrees, data resolved (valid after loading).
  workloads::ParallelDegrees degrees() const;
  /// The groups' torus axes (valid after loading).
  ParallelAxes axes() const;
};

}  // namespace systole::models
