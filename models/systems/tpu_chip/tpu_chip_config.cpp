#include "models/systems/tpu_chip/tpu_chip_config.h"

#include <fmt/format.h>

namespace systole::models {

std::string TpuChipConfig::unit_name(std::uint16_t unit) const {
  if (unit >= units()) return "host_dma";
  const auto core = unit / units_per_core();
  const auto i = unit % units_per_core();
  if (i < mxus_per_core) return fmt::format("core{}.mxu{}", core, i);
  if (i < mxus_per_core + dma.engines) return fmt::format("core{}.dma{}", core, i - mxus_per_core);
  return fmt::format("core{}.vpu", core);
}

// Defaults describe TPU v4 (FACTS.md §A.3): 2 TensorCores x 4 MXUs of 128x128 at 1050 MHz.
void TpuChipConfig::address(Program& program, const std::string& device) const {
  program.units.clear();
  for (std::int64_t u = 0; u < units(); ++u)
    program.units.push_back(device + "." + unit_name(static_cast<std::uint16_t>(u)));
  program.memories = {device + ".hbm", device + ".cmem"};
  if (host.declared()) {
    program.units.push_back(device + "." + unit_name(host_dma_unit()));
    program.memories.push_back(device + ".host");
  }
}

const config::SchemaOf<TpuChipConfig>& TpuChipConfig::schema() {
  static const config::SchemaOf<TpuChipConfig> s = [] {
    config::SchemaOf<TpuChipConfig> b("chip", "a TPU-class chip");
    b.frequency("clock", &TpuChipConfig::clock, std::string("1050MHz"), Hz(1e6), Hz(1e11),
                "core clock")
        .integer("tensor_cores", &TpuChipConfig::tensor_cores, 2, 1, 64, "TensorCores per chip",
                 "cores")
        .integer("mxus_per_core", &TpuChipConfig::mxus_per_core, 4, 1, 64, "MXUs per TensorCore",
                 "MXUs")
        .group("mxu", &TpuChipConfig::mxu, MxuConfig::schema(), "each MXU")
        .group("vmem", &TpuChipConfig::vmem, SramConfig::vmem_schema(), "per-core VMEM")
        .group("cmem", &TpuChipConfig::cmem, SramConfig::cmem_schema(), "chip CMEM")
        .group("hbm", &TpuChipConfig::hbm, HbmConfig::schema(), "main memory")
        .group("dma", &TpuChipConfig::dma, DmaConfig::schema(), "DMA engines")
        .group("vector", &TpuChipConfig::vector, VectorConfig::schema(), "vector unit per core")
        .group("host", &TpuChipConfig::host, HostLinkConfig::schema(),
               "link to host memory (none unless its bandwidth is declared)")
        .real("tdp_watts", &TpuChipConfig::tdp_watts, 192.0, 0.0, 10000.0,
              "chip power for per-watt comparisons (TPU v4: 192 W, the maximum of the measured "
              "min/mean/max 90/170/192 W on Google Cloud's TPU v4 page); 0: unpublished",
              "W");
    b.check([](const TpuChipConfig& c, const config::Node& n, const std::string& p) {
      if (c.units() > 65534)
        throw ConfigError(n.origin(), p, "too many units (cores x (MXUs + DMA engines) > 65535)");
    });
    return b;
  }();
  return s;
}

}  // namespace systole::models
