#include "models/systems/tpu_chip/tpu_system_config.h"

namespace systole::models {

void check_mapping_on_chip(const TpuChipConfig& chip, const workloads::MappingOptions& mapping,
                           const config::Node& n, const std::string& p) {
  if (!mapping.weights_tiled || chip.mxu.weight_fifo > 0) return;
  const config::Node* m = n.is_map() ? n.find("mapping") : nullptr;
  const config::Node* k = m && m->is_map() ? m->find("weight_layout") : nullptr;
  throw ConfigError(k ? k->origin() : n.origin(),
                    (p.empty() ? "" : p + ".") + "mapping.weight_layout",
                    "tiled weights are laid out as the weight FIFO's tiles, and this chip has "
                    "no weight FIFO (chip.mxu.weight_fifo is 0): use weight_layout: row_major, "
                    "or give the MXU a weight FIFO (chip.mxu.weight_fifo: 4, as TPU v1)");
}

const config::SchemaOf<TpuSystemConfig>& TpuSystemConfig::schema() {
  static const config::SchemaOf<TpuSystemConfig> s = [] {
    config::SchemaOf<TpuSystemConfig> b("tpu_chip", "one TPU-class chip with its HBM");
    b.group("chip", &TpuSystemConfig::chip, TpuChipConfig::schema(), "the chip")
        .group("mapping", &TpuSystemConfig::mapping, workloads::MappingOptions::schema(),
               "mapping choices")
        .ignore("kind");
    b.check([](const TpuSystemConfig& c, const config::Node& n, const std::string& p) {
      check_mapping_on_chip(c.chip, c.mapping, n, p);
    });
    return b;
  }();
  return s;
}

}  // namespace systole::models
