#pragma once
// Configuration of the inter-chip interconnect (ICI) of a TPU slice: the torus (or mesh, or
// TPU v4's twisted torus) the chips form, the links between neighbours (bandwidth per
// direction, latency, packet size, credits), the routers, the chips' ICI DMA queues and which
// network model times it (flow level by default, packet level as the reference).

#include <array>
#include <cstdint>
#include <string>

#include "sim/config/schema.h"

namespace systole::models {

enum class IciModel { kFlow, kPacket };
enum class IciTopologyKind { kTorus, kMesh, kTwistedTorus };

const char* ici_topology_name(IciTopologyKind k);

/// The `ici` section: topology, slice shape, link and router parameters, model choice.
struct IciConfig {
  IciModel model = IciModel::kFlow;
  IciTopologyKind topology = IciTopologyKind::kTorus;
  std::array<std::int64_t, 3> shape{{1, 1, 1}};  ///< chips along x, y, z ("4x4x8")
  BytesPerSecond link_bandwidth{0};              ///< per link, per direction
  Picoseconds link_latency{0};                   ///< wire, SerDes and FEC of one hop
  Picoseconds router_latency{0};                 ///< one router traversal (input to output)
  Bytes packet_size{0};                          ///< payload bytes per packet
  std::int64_t credits = 0;    ///< packets a message may hold in one router input buffer
  std::int64_t dma_queue = 0;  ///< transfers a chip's ICI DMA may have accepted, not completed
  std::int64_t max_chips = 0;  ///< chips of the pod a slice is cut from

  static const config::SchemaOf<IciConfig>& schema();

  std::int64_t chips() const { return shape[0] * shape[1] * shape[2]; }
  /// "4x4x8" (trailing dimensions of 1 left out: "8", "4x4").
  std::string shape_text() const;
};

}  // namespace systole::models
