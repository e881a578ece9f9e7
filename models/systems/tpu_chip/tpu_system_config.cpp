#include "models/systems/tpu_chip/tpu_system_config.h"

namespace systole::models {

const config::SchemaOf<TpuSystemConfig>& TpuSystemConfig::schema() {
  static const config::SchemaOf<TpuSystemConfig> s = [] {
    config::SchemaOf<TpuSystemConfig> b("tpu_chip", "one TPU-class chip with its HBM");
    b.group("chip", &TpuSystemConfig::chip, TpuChipConfig::schema(), "the chip")
        .group("mapping", &TpuSystemConfig::mapping, workloads::MappingOptions::schema(),
               "mapping choices")
        .ignore("kind");
    return b;
  }();
  return s;
}

}  // namespace systole::models
