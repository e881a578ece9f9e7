#pragma once
// Configuration of a memory link (models/link/memory_link_module.h): the depth of its transfer
// FIFO and the latency it adds before a transfer reaches the memory behind it.

#include "sim/config/schema.h"

namespace systole::models {

/// The `link` section: FIFO depth (transfers) and hop latency.
struct MemoryLinkConfig {
  std::int64_t depth = 0;  ///< transfers the link holds between acceptance and forwarding
  Picoseconds latency{0};  ///< from a transfer's acceptance to its offer to the memory
  static const config::SchemaOf<MemoryLinkConfig>& schema();
};

}  // namespace systole::models
