#include "models/link/memory_link_config.h"

namespace systole::models {

// ASSUMPTION depth 16, latency 0: a placeholder hop (a bus or crossbar port) that holds as many
// transfers as a memory's acceptance queue (hbm.transfer_queue) and adds no time, so a link
// at its defaults in front of a memory changes no result; no configs/ experiment places one.
const config::SchemaOf<MemoryLinkConfig>& MemoryLinkConfig::schema() {
  static const config::SchemaOf<MemoryLinkConfig> s = [] {
    config::SchemaOf<MemoryLinkConfig> b("link",
                                         "a hop between requesters and a memory (bounded FIFO)");
    b.integer("depth", &MemoryLinkConfig::depth, 16, 1, 1 << 20,
              "transfers held between acceptance and forwarding; a full link refuses", "transfers")
        .time("latency", &MemoryLinkConfig::latency, std::string("0ns"), 0, 1e-3,
              "from a transfer's acceptance to its offer to the memory behind the link");
    return b;
  }();
  return s;
}

}  // namespace systole::models
