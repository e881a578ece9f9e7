#pragma once
// The chips of a slice and the links between them: a 1-D/2-D/3-D torus (wrap-around on every
// dimension of 3 or more chips), a mesh (no wrap-around) or TPU v4's twisted torus, and
// minimal dimension-order routing over it. Plain C++. Each chip has six ports (+x -x +y -y +z
// -z, TPU v4's six ICI links); a port with no neighbour has no link.

#include <array>
#include <cstdint>
#include <vector>

#include "models/ici/ici_config.h"
#include "models/ici/ici_routes.h"

namespace systole::models {

// A LinkId here is chip x 6 + port: the directed link leaving that port.
constexpr int kIciPorts = 6;

/// Chip coordinates (x, y, z).
using ChipCoord = std::array<int, 3>;

/// A slice's chips and directed links, and the route between any two chips.
/// Twisted torus (Camara et al., "Twisted Torus Topologies for Enhanced Interconnection
/// Networks", IEEE TPDS 21(12), 2010; TPU v4 paper §"twisted torus"): in a k x k x 2k or
/// k x 2k x 2k slice, the wrap-around link of each k-chip dimension also moves k chips along
/// every 2k-chip dimension.
class IciTopology : public IciRoutes {
 public:
  IciTopology(IciTopologyKind kind, std::array<std::int64_t, 3> shape);
  explicit IciTopology(const IciConfig& c) : IciTopology(c.topology, c.shape) {}

  IciTopologyKind kind() const { return kind_; }
  const std::array<int, 3>& shape() const { return shape_; }
  int chips() const { return chips_; }
  /// Directed link ids run over [0, link_slots()); has_link() says which exist.
  int link_slots() const override { return chips_ * kIciPorts; }

  ChipCoord coord(ChipId c) const;
  ChipId chip(const ChipCoord& c) const;
  static LinkId link(ChipId c, int port) { return c * kIciPorts + static_cast<LinkId>(port); }
  static ChipId link_source(LinkId l) { return l / kIciPorts; }
  static int link_port(LinkId l) { return static_cast<int>(l % kIciPorts); }
  /// The port moving `dir` (+1 or -1) along dimension `dim`.
  static int port(int dim, int dir) { return 2 * dim + (dir > 0 ? 0 : 1); }
  /// "+x", "-z", ...
  static const char* port_name(int port);

  /// Whether dimension `dim` has wrap-around links.
  bool wraps(int dim) const { return wraps_[dim]; }
  /// Whether the link leaving `c` through `port` exists.
  bool has_link(ChipId c, int port) const { return neighbour_[link(c, port)] != kNone; }
  /// The chip at the other end of that link (has_link must hold).
  ChipId neighbour(ChipId c, int port) const { return neighbour_[link(c, port)]; }
  /// The chip at the other end of link `l`.
  ChipId link_target(LinkId l) const { return neighbour_[l]; }
  /// Links that exist.
  int link_count() const { return links_; }

  /// Appends the links of the route from `src` to `dst`: minimal, dimension by dimension (the
  /// twisted dimensions first); a tie between the two ways round a ring goes the + way from an
  /// even coordinate and the - way from an odd one.
  void route(ChipId src, ChipId dst, std::vector<LinkId>& out) const override;
  /// Links on the route from `src` to `dst`.
  int hops(ChipId src, ChipId dst) const;

 private:
  static constexpr ChipId kNone = 0xffffffffu;
  /// Signed hops along each dimension of the route and the order the dimensions go in.
  struct Plan {
    std::array<int, 3> steps{};
    std::array<int, 3> order{};
  };
  Plan plan(ChipId src, ChipId dst) const;
  /// The coordinate after crossing the wrap-around of `dim` in direction `dir` (twists applied).
  void cross_wrap(ChipCoord& c, int dim, int dir) const;
  void build_links();

  IciTopologyKind kind_;
  std::array<int, 3> shape_{};
  int chips_ = 0;
  int links_ = 0;
  std::array<bool, 3> wraps_{};
  std::array<std::array<int, 3>, 3> twist_{};  ///< [from][to]: chips moved along `to`
  std::array<int, 3> order_{};                 ///< route order of the dimensions
  std::vector<ChipId> neighbour_;              ///< per link slot
};

}  // namespace systole::models
