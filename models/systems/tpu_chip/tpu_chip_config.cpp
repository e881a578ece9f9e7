#include "models/systems/tpu_chip/tpu_chip_config.h"

#include <fmt/format.h>

namespace systole::models {

std::string TpuChipConfig::unit_name(std::uint16_t unit) const {
  const auto core = unit / units_per_core();
  const auto i = unit % units_per_core();
  if (i < mxus_per_core) return fmt::format("core{}.mxu{}", core, i);
  if (i < mxus_per_core + dma.engines) return fmt::format("core{}.dma{}", core, i - mxus_per_core);
  return fmt::format("core{}.vpu", core);
}

// Defaults describe TPU v4 (FACTS.md §A.3): 2 TensorCores x 4 MXUs of 128x128 at 1050 MHz.
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
        .group("vector", &TpuChipConfig::vector, VectorConfig::schema(), "vector unit per core");
    b.check([](const TpuChipConfig& c, const config::Node& n, const std::string& p) {
      if (c.units() > 65535)
        throw ConfigError(n.origin(), p, "too many units (cores x (MXUs + DMA engines) > 65535)");
    });
    return b;
  }();
  return s;
}

const config::SchemaOf<TpuMappingConfig>& TpuMappingConfig::schema() {
  static const config::SchemaOf<TpuMappingConfig> s = [] {
    config::SchemaOf<TpuMappingConfig> b("mapping", "how layers are mapped onto the chip");
    b.choice<Attention>("attention", &TpuMappingConfig::attention,
                        {{"fused", Attention::kFused}, {"unfused", Attention::kUnfused}},
                        std::string("fused"),
                        "fused: FlashAttention-style tiles in VMEM; unfused: QK^T, softmax and "
                        "PV as separate steps with the score matrix in HBM")
        .choice<Activations>("activations", &TpuMappingConfig::activations,
                             {{"hbm", Activations::kHbm}, {"on_chip", Activations::kOnChip}},
                             std::string("hbm"),
                             "where GEMM/conv activations live between layers: hbm, or on chip "
                             "in half of VMEM when they fit (TPU v1's Unified Buffer)")
        .choice<Fusion>("fusion", &TpuMappingConfig::fusion,
                        {{"epilogue", Fusion::kEpilogue}, {"none", Fusion::kNone}},
                        std::string("epilogue"),
                        "epilogue: an elementwise layer (gelu, silu, add, mul) right after a GEMM "
                        "over its output runs on each output tile before it is stored, as one "
                        "layer 'gemm+op' (gelu or silu over half of it, then mul: a gated unit "
                        "such as SwiGLU, storing the gated half); none: every layer reads and "
                        "writes HBM")
        .boolean("cmem_handoff", &TpuMappingConfig::cmem_handoff, true,
                 "a vector layer's or fused attention's output that the next GEMM reads as its "
                 "A operand stays in CMEM (when it fits) instead of crossing HBM twice")
        .boolean("layer_overlap", &TpuMappingConfig::layer_overlap, true,
                 "true: one op graph for the whole workload, layers ordered only by their data "
                 "and VMEM buffers, so the next layer's weights stream in while the current one "
                 "computes; false: each layer starts when the one before it has finished");
    return b;
  }();
  return s;
}

const config::SchemaOf<TpuSystemConfig>& TpuSystemConfig::schema() {
  static const config::SchemaOf<TpuSystemConfig> s = [] {
    config::SchemaOf<TpuSystemConfig> b("tpu_chip", "one TPU-class chip with its HBM");
    b.group("chip", &TpuSystemConfig::chip, TpuChipConfig::schema(), "the chip")
        .group("mapping", &TpuSystemConfig::mapping, TpuMappingConfig::schema(), "mapping choices")
        .ignore("kind");
    return b;
  }();
  return s;
}

}  // namespace systole::models
