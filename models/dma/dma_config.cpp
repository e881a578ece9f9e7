#include "models/dma/dma_config.h"

#include <fmt/format.h>

namespace systole::models {

// TPU v4 DMA: strided access at 512 B granularity (FACTS.md §A.3, [V4-notes]), so requests of
// 512 B; one request issued per cycle per core by the scalar unit (FACTS.md §A.4). The engine
// count, setup overhead and outstanding-request depth are assumptions (no published figure).
// ASSUMPTION outstanding 2048: a request holds its slot until its data has arrived (the HBM's
// interface latency is inside the window), so by Little's law a TensorCore's engines must keep
// latency x bandwidth in flight to reach the HBM's bandwidth: 1.23 TB/s x (500 ns + ~55 ns of
// DRAM) = 682 KB. The bank-level HBM cuts requests at its 256 B interleave blocks, so the two
// engines of one core hold 2 x 2048 x 256 B = 1 MiB, with margin. Plausible range 512-4096.
void check_request_size(Bytes request, const config::Node& n, const std::string& p) {
  const auto r = request.value();
  if (r & (r - 1)) {
    const config::Node* k = n.is_map() ? n.find("request") : nullptr;
    throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? "request" : p + ".request",
                      fmt::format("{} B is not a power of two", r));
  }
}

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
        .integer("outstanding", &DmaConfig::outstanding, 2048, 1, 1 << 20,
                 "memory requests an engine may have in flight", "requests");
    b.check([](const DmaConfig& c, const config::Node& n, const std::string& p) {
      check_request_size(c.request, n, p);
    });
    return b;
  }();
  return s;
}

}  // namespace systole::models
