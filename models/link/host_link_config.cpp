#include "models/link/host_link_config.h"

#include "models/dma/dma_config.h"

namespace systole::models {

// Defaults: no host link (bandwidth 0), so a chip that does not declare one runs as before: the
// workload's inputs are taken to be on chip already and its outputs stay there. The request
// defaults are PCIe's: 512 B is a common Max_Read_Request_Size (the PCIe Base Specification
// allows 128 B-4 KiB), and 256 outstanding requests is what 8-bit Extended Tags allow
// (PCIe 3.0 Base Specification §2.2.6.2); neither binds at a ~1 us round trip (15.75 GB/s x
// 1 us = 31 requests of 512 B).
const config::SchemaOf<HostLinkConfig>& HostLinkConfig::schema() {
  static const config::SchemaOf<HostLinkConfig> s = [] {
    config::SchemaOf<HostLinkConfig> b(
        "host",
        "the chip's link to host memory (e.g. PCIe): the workload's inputs are read over it "
        "before the layers that need them and its outputs written back after the last layer");
    b.bandwidth("bandwidth", &HostLinkConfig::bandwidth, std::string("0B/s"), BytesPerSecond(0),
                BytesPerSecond(1e15),
                "sustained bandwidth per direction; 0: no host link (inputs already on chip, "
                "outputs stay there)")
        .time("latency", &HostLinkConfig::latency, std::string("0ns"), 0, 1e-3,
              "round trip of a request: from its issue to its data's arrival")
        .bytes("request", &HostLinkConfig::request, std::string("512B"), Bytes(64), Bytes(1 << 20),
               "bytes per request (a power of two)")
        .integer("outstanding", &HostLinkConfig::outstanding, 256, 1, 1 << 20,
                 "requests in flight at once", "requests");
    b.check([](const HostLinkConfig& c, const config::Node& n, const std::string& p) {
      check_request_size(c.request, n, p);
    });
    return b;
  }();
  return s;
}

}  // namespace systole::models
