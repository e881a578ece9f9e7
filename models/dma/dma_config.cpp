#include "models/dma/dma_config.h"

#include <fmt/format.h>

namespace systole::models {

// TPU v4 DMA: strided access at 512 B granularity (FACTS.md §A.3, [V4-notes]), so requests of
// 512 B; one request issued per cycle per core by the scalar unit (FACTS.md §A.4). The engine
// count, setup overhead and outstanding-request depth are placeholders; 512 requests of up to
// 512 B cover ~200 ns at the full 1.2 TB/s (Little's law), more than the DRAM-side latency the
// bank-level HBM shows under load (tens of ns of queueing plus tRCD + tCL).
const config::SchemaOf<DmaConfig>& DmaConfig::schema() {
  static const config::SchemaOf<DmaConfig> s = [] {
    config::SchemaOf<DmaConfig> b("dma", "DMA engines between HBM/CMEM and VMEM");
    b.integer("engines", &DmaConfig::engines, 2, 1, 64, "engines per TensorCore", "engines")
        .bytes("granule", &DmaConfig::granule, std::string("512B"), Bytes(1), Bytes(1 << 20),
               "transfer granularity: contiguous pieces round up to it")
        .time("setup", &DmaConfig::setup, std::string("10ns"), 0, 1e-3,
              "issue overhead per transfer")
        .bytes("request", &DmaConfig::request, std::string("512B"), Bytes(32), Bytes(1 << 20),
               "bytes per memory request (a power of two)")
        .integer("outstanding", &DmaConfig::outstanding, 512, 1, 1 << 20,
                 "memory requests an engine may have in flight", "requests");
    b.check([](const DmaConfig& c, const config::Node& n, const std::string& p) {
      const auto r = c.request.value();
      if (r & (r - 1)) {
        const config::Node* k = n.is_map() ? n.find("request") : nullptr;
        throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? "request" : p + ".request",
                          fmt::format("{} B is not a power of two", r));
      }
    });
    return b;
  }();
  return s;
}

}  // namespace systole::models
