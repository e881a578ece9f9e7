#pragma once
// Configuration of a TPU-class chip and the fixed order of its program-executing units.

#include <string>

#include "models/common/program.h"
#include "models/dma/dma_config.h"
#include "models/hbm/hbm_config.h"
#include "models/link/host_link_config.h"
#include "models/mxu/mxu_config.h"
#include "models/sram/sram_config.h"
#include "models/vector/vector_config.h"

namespace systole::models {

struct TpuChipConfig {
  Hz clock{0};
  std::int64_t tensor_cores = 0;
  std::int64_t mxus_per_core = 0;
  MxuConfig mxu;
  SramConfig vmem;
  SramConfig cmem;
  HbmConfig hbm;
  DmaConfig dma;
  VectorConfig vector;
  HostLinkConfig host;   ///< the link to host memory (none unless declared)
  double tdp_watts = 0;  ///< the chip's power limit for per-watt comparisons; 0: unpublished
  static const config::SchemaOf<TpuChipConfig>& schema();

  /// Per core: the MXUs, then the DMA engines, then the vector unit; after every core's, the
  /// host DMA engine when the chip declares a host link (it is not counted in units()).
  std::int64_t units_per_core() const { return mxus_per_core + dma.engines + 1; }
  std::int64_t units() const { return tensor_cores * units_per_core(); }
  /// The engine that moves data over the host link (only with host.declared()).
  std::uint16_t host_dma_unit() const { return static_cast<std::uint16_t>(units()); }
  std::uint16_t mxu_unit(std::int64_t core, std::int64_t i) const {
    return static_cast<std::uint16_t>(core * units_per_core() + i);
  }
  std::uint16_t dma_unit(std::int64_t core, std::int64_t e) const {
    return static_cast<std::uint16_t>(core * units_per_core() + mxus_per_core + e);
  }
  std::uint16_t vector_unit(std::int64_t core) const {
    return static_cast<std::uint16_t>(core * units_per_core() + mxus_per_core + dma.engines);
  }
  std::string unit_name(std::uint16_t unit) const;
  /// The memories a DMA op names, in this order: the index a lowering writes in Op::memory.
  /// kHost only with host.declared().
  enum Memory : std::uint8_t { kHbm = 0, kCmem = 1, kHost = 2 };
  /// Gives `program` this chip's unit and memory tables under `device` (the netlist's name for
  /// the chip): `device.core0.mxu0`, ... in unit order (then `device.host_dma`), then
  /// `device.hbm`, `device.cmem` (then `device.host`).
  void address(Program& program, const std::string& device = "chip0") const;
  std::uint64_t peak_macs_per_cycle() const {
    return static_cast<std::uint64_t>(tensor_cores * mxus_per_core * mxu.rows * mxu.cols);
  }
};

}  // namespace systole::models
