#include "models/sram/sram_config.h"

namespace systole::models {

namespace {
config::SchemaOf<SramConfig> make(const char* name, const char* doc, const char* cap,
                                  const char* bw, const char* lat, std::int64_t banks,
                                  const char* width, Bytes min_capacity, const char* cap_doc) {
  config::SchemaOf<SramConfig> b(name, doc);
  b.bytes("capacity", &SramConfig::capacity, std::string(cap), min_capacity, Bytes(1ull << 40),
          cap_doc)
      .bandwidth("bandwidth", &SramConfig::bandwidth, std::string(bw), BytesPerSecond(1e6),
                 BytesPerSecond(1e16), "peak bandwidth, all banks and ports together")
      .time("latency", &SramConfig::latency, std::string(lat), 0, 1e-3, "read latency")
      .time("write_latency", &SramConfig::write_latency, std::string(lat), 0, 1e-3, "write latency")
      .integer("banks", &SramConfig::banks, banks, 1, 1 << 16, "independent banks", "banks")
      .integer("ports", &SramConfig::ports, 1, 1, 16, "accesses a bank serves at a time", "ports")
      .bytes("width", &SramConfig::width, std::string(width), Bytes(1), Bytes(1 << 20),
             "bytes per bank access; addresses interleave over the banks at this granularity");
  return b;
}
}  // namespace

// TPU v4: 16 MiB VMEM per TensorCore, 128 MiB CMEM per chip (FACTS.md §A.3, [JAX-tpuinfo]).
// VMEM has two faces: `bandwidth` is its read port towards the MXUs (models/mxu/vmem_port.h),
// `dma_bandwidth` its banks towards the DMA engines (models/sram/sram_timing.h).
// Bandwidths, latencies, bank counts and widths are not published; the defaults below are
// placeholders chosen so VMEM never limits the MXUs (FACTS.md §A.4: VMEM<->MXU ~22x HBM
// bandwidth on v5e). VMEM: 32 banks of 512 B (the DMA granule); CMEM: 64 banks of 64 B.
const config::SchemaOf<SramConfig>& SramConfig::vmem_schema() {
  static const auto s = [] {
    auto b = make("vmem", "per-core vector memory (software-managed SRAM)", "16MiB", "26TB/s",
                  "5ns", 32, "512B", Bytes(1024), "capacity");
    b.bandwidth("dma_bandwidth", &SramConfig::dma_bandwidth, std::string("26TB/s"),
                BytesPerSecond(1e6), BytesPerSecond(1e16),
                "peak of the banks towards the DMA engines (bandwidth: towards the MXUs)");
    return b;
  }();
  return s;
}

// ASSUMPTION cmem.transfer_queue 16: as hbm.transfer_queue (models/hbm/hbm_config.cpp).
const config::SchemaOf<SramConfig>& SramConfig::cmem_schema() {
  static const auto s = [] {
    auto b =
        make("cmem", "chip-level common memory shared by the TensorCores", "128MiB", "2.4TB/s",
             "50ns", 64, "64B", Bytes(0), "capacity (0: no CMEM; GEMM mappings stage nothing)");
    b.integer("transfer_queue", &SramConfig::transfer_queue, 16, 1, 1 << 20,
              "transfers a requester may have accepted and not yet arrived; a full queue "
              "refuses the next until one completes",
              "transfers");
    return b;
  }();
  return s;
}

}  // namespace systole::models
