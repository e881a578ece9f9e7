#include "models/hbm/hbm_config.h"

namespace systole::models {

// TPU v4: 32 GiB HBM2, 1200 GB/s (FACTS.md §A.3, [GCP-v4], [JAX-tpuinfo]). The unloaded latency
// default (~500 ns) is a placeholder of the order GPUs show for DRAM (FACTS.md §C.2: ~570-650
// cycles at ~1.4-1.8 GHz); no TPU figure is published.
const config::SchemaOf<HbmConfig>& HbmConfig::schema() {
  static const config::SchemaOf<HbmConfig> s = [] {
    config::SchemaOf<HbmConfig> b("hbm", "high-bandwidth main memory (bandwidth/latency model)");
    b.bytes("capacity", &HbmConfig::capacity, std::string("32GiB"), Bytes(1ull << 20),
            Bytes(1ull << 44), "capacity")
        .bandwidth("bandwidth", &HbmConfig::bandwidth, std::string("1.2TB/s"), BytesPerSecond(1e6),
                   BytesPerSecond(1e15), "peak bandwidth")
        .time("latency", &HbmConfig::latency, std::string("500ns"), 0, 1e-3,
              "unloaded access latency")
        .real("efficiency", &HbmConfig::efficiency, 1.0, 0.01, 1.0,
              "sustained fraction of peak bandwidth");
    return b;
  }();
  return s;
}

}  // namespace systole::models
