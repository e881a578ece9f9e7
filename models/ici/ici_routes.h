#pragma once
// What a network model needs of a topology: the directed links there are and the route between
// two nodes. IciTopology (the TPU torus) and NvSwitchRoutes (an NVLink/NVSwitch node) implement
// it, so both ICI network models (flow and packet level) time either. Plain C++.

#include <cstdint>
#include <vector>

namespace systole::models {

using ChipId = std::uint32_t;  ///< a node of the network (a chip, a GPU, a switch)
using LinkId = std::uint32_t;  ///< a directed link, in [0, link_slots())

/// The links of a network and the route between its nodes.
class IciRoutes {
 public:
  virtual ~IciRoutes() = default;
  /// Directed link ids run over [0, link_slots()).
  virtual int link_slots() const = 0;
  /// Appends the links of the route from `src` to `dst` (none when src == dst).
  virtual void route(ChipId src, ChipId dst, std::vector<LinkId>& out) const = 0;
};

}  // namespace systole::models
