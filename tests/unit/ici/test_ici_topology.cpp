// ICI topologies: link counts, neighbours, wrap-around and twist, and routes that are minimal
// (equal to breadth-first distances over the links) and dimension-ordered.
#include <catch2/catch.hpp>

#include <queue>

#include "models/ici/ici_topology.h"

using namespace systole::models;

namespace {

/// Breadth-first hop distances from `src` over the links that exist.
std::vector<int> bfs(const IciTopology& t, ChipId src) {
  std::vector<int> d(static_cast<std::size_t>(t.chips()), -1);
  std::queue<ChipId> q;
  d[src] = 0;
  q.push(src);
  while (!q.empty()) {
    const ChipId c = q.front();
    q.pop();
    for (int p = 0; p < kIciPorts; ++p) {
      if (!t.has_link(c, p)) continue;
      const ChipId n = t.neighbour(c, p);
      if (d[n] < 0) {
        d[n] = d[c] + 1;
        q.push(n);
      }
    }
  }
  return d;
}

double mean_hops(const IciTopology& t) {
  double sum = 0;
  for (ChipId a = 0; a < static_cast<ChipId>(t.chips()); ++a)
    for (ChipId b = 0; b < static_cast<ChipId>(t.chips()); ++b) sum += t.hops(a, b);
  return sum / (static_cast<double>(t.chips()) * t.chips());
}

}  // namespace

TEST_CASE("ICI link counts: torus, mesh, rings of two", "[unit][ici]") {
  // 4x4x4 torus: 6 links per chip. Mesh: per dimension 2 x (4 - 1) x 16 = 96 links, x3.
  CHECK(IciTopology(IciTopologyKind::kTorus, {4, 4, 4}).link_count() == 64 * 6);
  CHECK(IciTopology(IciTopologyKind::kMesh, {4, 4, 4}).link_count() == 3 * 96);
  // A dimension of 2 has no wrap-around (it would be the same pair of chips again): the 2x2x1
  // torus is the 2x2 mesh, 8 directed links.
  const IciTopology t(IciTopologyKind::kTorus, {2, 2, 1});
  CHECK(t.link_count() == 8);
  CHECK_FALSE(t.wraps(0));
  CHECK(IciTopology(IciTopologyKind::kTorus, {8, 1, 1}).link_count() == 16);
  CHECK(IciTopology(IciTopologyKind::kMesh, {8, 1, 1}).link_count() == 14);
}

TEST_CASE("ICI neighbours: every link has its reverse", "[unit][ici]") {
  for (auto kind :
       {IciTopologyKind::kTorus, IciTopologyKind::kMesh, IciTopologyKind::kTwistedTorus}) {
    const IciTopology t(kind, {4, 4, 8});
    for (ChipId c = 0; c < static_cast<ChipId>(t.chips()); ++c)
      for (int d = 0; d < 3; ++d)
        for (int dir : {+1, -1}) {
          const int p = IciTopology::port(d, dir);
          if (!t.has_link(c, p)) continue;
          const ChipId n = t.neighbour(c, p);
          REQUIRE(t.has_link(n, IciTopology::port(d, -dir)));
          CHECK(t.neighbour(n, IciTopology::port(d, -dir)) == c);
        }
  }
}

TEST_CASE("ICI twisted torus: a short dimension's wrap-around moves k along the long ones",
          "[unit][ici]") {
  // 4x4x8 (k = 4): +x from x = 3 lands on x = 0 and z + 4; +z wraps plainly.
  const IciTopology t(IciTopologyKind::kTwistedTorus, {4, 4, 8});
  CHECK(t.coord(t.neighbour(t.chip({3, 1, 2}), IciTopology::port(0, +1))) == ChipCoord{0, 1, 6});
  CHECK(t.coord(t.neighbour(t.chip({0, 1, 6}), IciTopology::port(0, -1))) == ChipCoord{3, 1, 2});
  CHECK(t.coord(t.neighbour(t.chip({1, 3, 5}), IciTopology::port(1, +1))) == ChipCoord{1, 0, 1});
  CHECK(t.coord(t.neighbour(t.chip({1, 1, 7}), IciTopology::port(2, +1))) == ChipCoord{1, 1, 0});
  // 4x8x8 (one short axis): its wrap-around moves 4 along both long axes.
  const IciTopology u(IciTopologyKind::kTwistedTorus, {4, 8, 8});
  CHECK(u.coord(u.neighbour(u.chip({3, 1, 2}), IciTopology::port(0, +1))) == ChipCoord{0, 5, 6});
}

TEST_CASE("ICI routes are minimal and dimension-ordered", "[unit][ici]") {
  struct Case {
    IciTopologyKind kind;
    std::array<std::int64_t, 3> shape;
  };
  const Case cases[] = {
      {IciTopologyKind::kTorus, {4, 4, 4}},        {IciTopologyKind::kTorus, {5, 3, 2}},
      {IciTopologyKind::kTorus, {16, 1, 1}},       {IciTopologyKind::kMesh, {4, 3, 2}},
      {IciTopologyKind::kMesh, {2, 2, 1}},         {IciTopologyKind::kTwistedTorus, {4, 4, 8}},
      {IciTopologyKind::kTwistedTorus, {4, 8, 8}}, {IciTopologyKind::kTwistedTorus, {2, 2, 4}},
      {IciTopologyKind::kTwistedTorus, {8, 4, 1}}, {IciTopologyKind::kTwistedTorus, {6, 3, 6}},
  };
  for (const Case& c : cases) {
    const IciTopology t(c.kind, c.shape);
    INFO(ici_topology_name(c.kind) << " " << c.shape[0] << "x" << c.shape[1] << "x" << c.shape[2]);
    std::vector<LinkId> path;
    for (ChipId a = 0; a < static_cast<ChipId>(t.chips()); ++a) {
      const std::vector<int> d = bfs(t, a);
      for (ChipId b = 0; b < static_cast<ChipId>(t.chips()); ++b) {
        path.clear();
        t.route(a, b, path);  // asserts that the links chain from a to b
        REQUIRE(static_cast<int>(path.size()) == d[b]);
        CHECK(t.hops(a, b) == d[b]);
        if (c.kind == IciTopologyKind::kTwistedTorus) continue;
        for (std::size_t i = 1; i < path.size(); ++i)  // x, then y, then z
          CHECK(IciTopology::link_port(path[i - 1]) / 2 <= IciTopology::link_port(path[i]) / 2);
      }
    }
  }
}

TEST_CASE("ICI twisted torus: shorter mean distance than the regular torus", "[unit][ici]") {
  // Camara et al. (IEEE TPDS 2010): twisting a k x k x 2k torus lowers its average distance;
  // TPU v4 uses it for all-to-all traffic.
  const IciTopology plain(IciTopologyKind::kTorus, {4, 4, 8});
  const IciTopology twisted(IciTopologyKind::kTwistedTorus, {4, 4, 8});
  CHECK(mean_hops(twisted) < mean_hops(plain));
}

TEST_CASE("ICI ties around an even ring split by coordinate parity", "[unit][ici]") {
  // 4-ring: 2 hops either way; from x = 0 the + way, from x = 1 the - way.
  const IciTopology t(IciTopologyKind::kTorus, {4, 1, 1});
  std::vector<LinkId> p;
  t.route(0, 2, p);
  CHECK(IciTopology::link_port(p[0]) == IciTopology::port(0, +1));
  p.clear();
  t.route(1, 3, p);
  CHECK(IciTopology::link_port(p[0]) == IciTopology::port(0, -1));
}
