#pragma once
// The chip of the golden cycle tests: 1 core with `mxus` MXUs (given as YAML), one DMA engine,
// 1 GHz, main memory at 1 GB/s (one byte per cycle) with no latency, no DMA setup time, so every
// cost is a whole number of cycles; a chip from a YAML `system:` body; and a plain GEMM layer.
#include <string>

#include "models/systems/tpu_chip/tpu_system_config.h"
#include "sim/config/node.h"
#include "workloads/ir/layer.h"

namespace systole::test {

inline models::TpuChipConfig tiny_chip(int mxus = 1, const std::string& mxu = "{rows: 4, cols: 4}",
                                       const std::string& vmem = "{capacity: 1KiB}") {
  const auto node = config::parse_yaml(
      "chip:\n  clock: 1GHz\n  tensor_cores: 1\n  mxus_per_core: " + std::to_string(mxus) +
          "\n  mxu: " + mxu + "\n  vmem: " + vmem +
          "\n  hbm: {model: bandwidth, bandwidth: 1GB/s, latency: 0ns}\n"
          "  dma: {engines: 1, granule: 1B, setup: 0ns}\n",
      "tiny");
  return models::TpuSystemConfig::schema().load(node, "system").chip;
}

/// The chip of a `system:` section given as YAML (e.g. "chip: {vmem: {capacity: 1MiB}}").
inline models::TpuChipConfig chip_with(const std::string& yaml) {
  return models::TpuSystemConfig::schema().load(config::parse_yaml(yaml, "test"), "system").chip;
}

inline workloads::Layer gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  workloads::Layer l;
  l.name = "g";
  l.m = m;
  l.n = n;
  l.k = k;
  return l;
}

}  // namespace systole::test
