#include "models/sram/sram_config.h"

namespace systole::models {

namespace {
config::SchemaOf<SramConfig> make(const char* name, const char* doc, const char* cap,
                                  const char* bw, const char* lat, std::int64_t banks) {
  config::SchemaOf<SramConfig> b(name, doc);
  b.bytes("capacity", &SramConfig::capacity, std::string(cap), Bytes(1024), Bytes(1ull << 40),
          "capacity")
      .bandwidth("bandwidth", &SramConfig::bandwidth, std::string(bw), BytesPerSecond(1e6),
                 BytesPerSecond(1e16), "peak bandwidth")
      .time("latency", &SramConfig::latency, std::string(lat), 0, 1e-3, "access latency")
      .integer("banks", &SramConfig::banks, banks, 1, 1 << 16, "independent banks", "banks");
  return b;
}
}  // namespace

// TPU v4: 16 MiB VMEM per TensorCore, 128 MiB CMEM per chip (FACTS.md §A.3, [JAX-tpuinfo]).
// Bandwidths and latencies are not published; the defaults below are placeholders chosen so
// VMEM never limits the MXUs (FACTS.md §A.4: VMEM<->MXU ~22x HBM bandwidth on v5e).
const config::SchemaOf<SramConfig>& SramConfig::vmem_schema() {
  static const auto s =
      make("vmem", "per-core vector memory (software-managed SRAM)", "16MiB", "26TB/s", "5ns", 32);
  return s;
}

const config::SchemaOf<SramConfig>& SramConfig::cmem_schema() {
  static const auto s = make("cmem", "chip-level common memory shared by the TensorCores", "128MiB",
                             "2.4TB/s", "50ns", 64);
  return s;
}

}  // namespace systole::models
