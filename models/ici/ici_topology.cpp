#include "models/ici/ici_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "sim/core/error.h"

namespace systole::models {

namespace {

int wrap_mod(int v, int n) { return ((v % n) + n) % n; }

}  // namespace

IciTopology::IciTopology(IciTopologyKind kind, std::array<std::int64_t, 3> shape) : kind_(kind) {
  for (int d = 0; d < 3; ++d) {
    if (shape[d] < 1 || shape[d] > (1 << 16))
      throw SimError(fmt::format("ICI topology: dimension {} of {} chips", d, shape[d]));
    shape_[d] = static_cast<int>(shape[d]);
  }
  chips_ = shape_[0] * shape_[1] * shape_[2];
  int k = 0;  // the short dimension of a twisted torus
  for (int n : shape_)
    if (n > 1) k = k == 0 ? n : std::min(k, n);
  for (int d = 0; d < 3; ++d) {
    switch (kind_) {
      case IciTopologyKind::kTorus:
        wraps_[d] = shape_[d] >= 3;  // a ring of 2 would be the same link twice
        break;
      case IciTopologyKind::kMesh:
        wraps_[d] = false;
        break;
      case IciTopologyKind::kTwistedTorus:
        wraps_[d] = shape_[d] >= 2;
        for (int e = 0; e < 3; ++e)
          if (shape_[d] == k && shape_[e] == 2 * k) twist_[d][e] = k;
        break;
    }
  }
  // Route order: the twisted dimensions first (their wrap-around moves the others), then the
  // rest in x, y, z order.
  int i = 0;
  for (int d = 0; d < 3; ++d)
    if (twist_[d][0] + twist_[d][1] + twist_[d][2] > 0) order_[i++] = d;
  for (int d = 0; d < 3; ++d)
    if (twist_[d][0] + twist_[d][1] + twist_[d][2] == 0) order_[i++] = d;
  build_links();
}

ChipCoord IciTopology::coord(ChipId c) const {
  const int v = static_cast<int>(c);
  return {v % shape_[0], (v / shape_[0]) % shape_[1], v / (shape_[0] * shape_[1])};
}

ChipId IciTopology::chip(const ChipCoord& c) const {
  return static_cast<ChipId>(c[0] + shape_[0] * (c[1] + shape_[1] * c[2]));
}

const char* IciTopology::port_name(int port) {
  static const char* const kNames[kIciPorts] = {"+x", "-x", "+y", "-y", "+z", "-z"};
  return kNames[port];
}

void IciTopology::cross_wrap(ChipCoord& c, int dim, int dir) const {
  for (int e = 0; e < 3; ++e)
    if (twist_[dim][e]) c[e] = wrap_mod(c[e] + dir * twist_[dim][e], shape_[e]);
}

void IciTopology::build_links() {
  neighbour_.assign(static_cast<std::size_t>(link_slots()), kNone);
  links_ = 0;
  for (ChipId c = 0; c < static_cast<ChipId>(chips_); ++c) {
    for (int d = 0; d < 3; ++d) {
      if (shape_[d] == 1) continue;
      for (int dir : {+1, -1}) {
        ChipCoord n = coord(c);
        n[d] += dir;
        if (n[d] < 0 || n[d] >= shape_[d]) {
          if (!wraps_[d]) continue;
          n[d] = wrap_mod(n[d], shape_[d]);
          cross_wrap(n, d, dir);
        }
        neighbour_[link(c, port(d, dir))] = chip(n);
        ++links_;
      }
    }
  }
}

IciTopology::Plan IciTopology::plan(ChipId src, ChipId dst) const {
  const ChipCoord s = coord(src), t = coord(dst);
  Plan best;
  best.order = order_;
  int best_hops = -1;
  // Depth-first over the dimensions in route order; on a ring, both ways round are candidates
  // (the + way first from an even coordinate), as a twisted wrap-around moves later dimensions.
  struct Frame {
    ChipCoord cur;
    std::array<int, 3> steps;
    int hops;
  };
  const auto visit = [&](const auto& self, int level, const Frame& f) -> void {
    if (level == 3) {
      if (best_hops < 0 || f.hops < best_hops) {
        best_hops = f.hops;
        best.steps = f.steps;
      }
      return;
    }
    const int d = order_[level], n = shape_[d];
    const bool twisted = twist_[d][0] + twist_[d][1] + twist_[d][2] > 0;
    int cand[4];
    int count = 0;
    if (!wraps_[d]) {
      cand[count++] = t[d] - f.cur[d];
    } else if (!twisted) {
      const int r = wrap_mod(t[d] - f.cur[d], n);
      if (r == 0) {
        cand[count++] = 0;
      } else {
        const bool plus_first = f.cur[d] % 2 == 0;
        cand[count++] = plus_first ? r : r - n;
        cand[count++] = plus_first ? r - n : r;
      }
    } else {
      // Each lap round a twisted ring also moves the long dimensions: one more lap either way
      // may be the shorter route.
      const int r = wrap_mod(t[d] - f.cur[d], n);
      for (int lap : {0, -1, 1, -2}) cand[count++] = r + lap * n;
    }
    for (int i = 0; i < count; ++i) {
      Frame g = f;
      const int delta = cand[i];
      const int end = f.cur[d] + delta;
      g.cur[d] = t[d];
      const int laps = end >= 0 ? end / n : -((n - 1 - end) / n);  // wrap-arounds crossed
      for (int w = 0; w < std::abs(laps); ++w) cross_wrap(g.cur, d, laps > 0 ? +1 : -1);
      g.steps[d] = delta;
      g.hops += std::abs(delta);
      self(self, level + 1, g);
    }
  };
  visit(visit, 0, Frame{s, {0, 0, 0}, 0});
  return best;
}

void IciTopology::route(ChipId src, ChipId dst, std::vector<LinkId>& out) const {
  const Plan p = plan(src, dst);
  ChipId cur = src;
  for (int d : p.order) {
    const int dir = p.steps[d] > 0 ? +1 : -1;
    const int prt = port(d, dir);
    for (int i = std::abs(p.steps[d]); i > 0; --i) {
      const LinkId l = link(cur, prt);
      SYSTOLE_ASSERT(neighbour_[l] != kNone, "ICI route leaves the slice");
      out.push_back(l);
      cur = neighbour_[l];
    }
  }
  SYSTOLE_ASSERT(cur == dst, "ICI route does not reach its destination");
}

int IciTopology::hops(ChipId src, ChipId dst) const {
  const Plan p = plan(src, dst);
  return std::abs(p.steps[0]) + std::abs(p.steps[1]) + std::abs(p.steps[2]);
}

}  // namespace systole::models
