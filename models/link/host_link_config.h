#pragma once
// Configuration of a chip's host link (a PCIe-attached coprocessor's path to host memory): the
// workload's inputs come in over it and its outputs go back (models/link/README.md).

#include "sim/config/schema.h"

namespace systole::models {

/// The `host` section of a chip: link bandwidth (0: no host link), latency and the request
/// shape of the engine that moves data over it.
struct HostLinkConfig {
  BytesPerSecond bandwidth{0};   ///< per direction, sustained; 0: no host link
  Picoseconds latency{0};        ///< from a request's issue to its data's arrival (round trip)
  Bytes request{0};              ///< bytes per request (PCIe: the read request size)
  std::int64_t outstanding = 0;  ///< requests the engine may have in flight (PCIe: tags)
  bool declared() const { return bandwidth.value() > 0; }
  static const config::SchemaOf<HostLinkConfig>& schema();
};

}  // namespace systole::models
