// Collective algorithms as message schedules (ici_collective.h). Each phase works on one ring
// (or line) of chips; `ready[chip]` holds the messages a chip's first send of the phase waits
// for, and on return what its next phase waits for. On a line, a chip sends its messages one
// after another (each once its previous one has arrived), so that they pipeline down the line
// rather than share the first link. Shards: chunk j of an m-byte array over p chips holds m/p
// bytes, plus one for j < m % p.
#include <algorithm>

#include "models/ici/ici_collective.h"

namespace systole::models {

namespace {

constexpr IciMessageId kNone = 0xffffffffu;

std::uint64_t chunk(std::uint64_t m, int p, int j) {
  const auto q = static_cast<std::uint64_t>(p);
  return m / q + (static_cast<std::uint64_t>(j) < m % q ? 1 : 0);
}
int mod(int a, int p) { return ((a % p) + p) % p; }

using Ready = std::vector<std::vector<IciMessageId>>;

/// Adds the messages of collective phases to a schedule.
class Builder {
 public:
  Builder(IciSchedule& s, Ready& ready) : s_(s), ready_(ready) {}

  void reduce_scatter(const IciRing& r, std::uint64_t m, bool bidir) {
    if (r.members.size() < 2) return;
    if (!bidir) return ring_reduce_scatter(r, m);
    if (r.closed) return bidir_reduce_scatter(r, m);
    line_reduce_scatter(r, m);
  }
  void all_gather(const IciRing& r, std::uint64_t m, bool bidir) {
    if (r.members.size() < 2) return;
    if (!bidir) return ring_all_gather(r, m);
    if (r.closed) return bidir_all_gather(r, m);
    line_all_gather(r, m);
  }
  void all_to_all(const IciRing& r, std::uint64_t m, bool bidir) {
    if (r.members.size() < 2) return;
    if (!bidir) return ring_all_to_all(r, m);
    if (r.closed) return bidir_all_to_all(r, m);
    line_all_to_all(r, m);
  }
  /// Every chip sends each other chip its chunk at once; the network routes them.
  void direct_all_to_all(const std::vector<ChipId>& g, std::uint64_t m) {
    const int p = static_cast<int>(g.size());
    if (p < 2) return;
    Receipts got(g.size());
    for (int o = 0; o < p; ++o)
      for (int t = 0; t < p; ++t)
        if (t != o) got[t].push_back(send(g[o], g[t], chunk(m, p, t), ready_[g[o]]));
    join(g, got);
  }

 private:
  using Receipts = std::vector<std::vector<IciMessageId>>;

  IciMessageId send(ChipId a, ChipId b, std::uint64_t bytes, const std::vector<IciMessageId>& base,
                    IciMessageId extra = kNone, IciMessageId extra2 = kNone) {
    deps_.assign(base.begin(), base.end());
    if (extra != kNone) deps_.push_back(extra);
    if (extra2 != kNone) deps_.push_back(extra2);
    return s_.add(a, b, bytes, deps_);
  }
  /// A chip's next phase waits for everything it received in this one (a zero-byte message to
  /// itself stands for that).
  void join(const std::vector<ChipId>& g, const Receipts& got) {
    for (std::size_t i = 0; i < g.size(); ++i) ready_[g[i]] = {s_.add(g[i], g[i], 0, got[i])};
  }

  /// One way round a closed ring (`dir` +1: to the next member, -1: to the previous), `steps`
  /// steps: at step s member i sends `bytes(i, s)` bytes on, once it has what it received at
  /// step s-1 and (at step 1, or every step when `own_every_step`: it adds its own part) its
  /// phase's dependencies. Appends each receipt to `got` (if given); returns, per member, what
  /// it received at the last step.
  template <class F>
  std::vector<IciMessageId> ring_pass(const IciRing& r, int dir, int steps, bool own_every_step,
                                      F bytes, Receipts* got) {
    const auto& g = r.members;
    const int p = static_cast<int>(g.size());
    std::vector<IciMessageId> recv(g.size(), kNone), fresh(g.size());
    for (int s = 1; s <= steps; ++s) {
      for (int i = 0; i < p; ++i) {
        const int to = mod(i + dir, p);
        const IciMessageId id = send(g[i], g[to], bytes(i, s),
                                     s == 1 || own_every_step ? ready_[g[i]] : none_, recv[i]);
        fresh[to] = id;
        if (got) (*got)[to].push_back(id);
      }
      recv.swap(fresh);
    }
    return recv;
  }

  // Unidirectional ring: step s, member i sends to i+1 the partial of chunk i-s, which it
  // received at step s-1 (plus its own part); member i ends with chunk i.
  void ring_reduce_scatter(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size());
    const auto last = ring_pass(
        r, +1, p - 1, true, [&](int i, int s) { return chunk(m, p, mod(i - s, p)); }, nullptr);
    for (int i = 0; i < p; ++i) ready_[r.members[i]] = {last[i]};
  }
  // Unidirectional ring: step s, member i forwards chunk i-s+1 (its own at step 1).
  void ring_all_gather(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size());
    Receipts got(r.members.size());
    ring_pass(
        r, +1, p - 1, false, [&](int i, int s) { return chunk(m, p, mod(i - s + 1, p)); }, &got);
    join(r.members, got);
  }
  /// Steps each way round a bidirectional ring: ceil((p-1)/2).
  static int half_steps(int p) { return p % 2 == 0 ? p / 2 : (p - 1) / 2; }
  /// The share of chunk `c` that goes the + way (the other way: the rest) when it is split
  /// between the ways: the chunk opposite a chip of an even ring.
  static std::uint64_t split(std::uint64_t c, bool plus) { return plus ? c / 2 : c - c / 2; }
  // Bidirectional ring: the chunks for chip j gather from both sides, a = ceil((p-1)/2) steps
  // each way; for even p the chip opposite j splits its part between the two ways (step 1).
  void bidir_reduce_scatter(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size()), a = half_steps(p);
    const bool even = p % 2 == 0;
    const auto size = [&](int j, bool plus, bool far) {
      return far ? split(chunk(m, p, j), plus) : chunk(m, p, j);
    };
    const auto cw = ring_pass(
        r, +1, a, true,
        [&](int i, int s) { return size(mod(i + a - s + 1, p), true, even && s == 1); }, nullptr);
    const auto ccw = ring_pass(
        r, -1, a, true,
        [&](int i, int s) { return size(mod(i - a + s - 1, p), false, even && s == 1); }, nullptr);
    for (int i = 0; i < p; ++i) ready_[r.members[i]] = {cw[i], ccw[i]};
  }
  // Bidirectional ring: chip i's chunk goes a steps each way; for even p the last step carries
  // half of the opposite chip's chunk each way.
  void bidir_all_gather(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size()), a = half_steps(p);
    const bool even = p % 2 == 0;
    const auto size = [&](int j, bool plus, bool far) {
      return far ? split(chunk(m, p, j), plus) : chunk(m, p, j);
    };
    Receipts got(r.members.size());
    ring_pass(
        r, +1, a, false,
        [&](int i, int s) { return size(mod(i - s + 1, p), true, even && s == a); }, &got);
    ring_pass(
        r, -1, a, false,
        [&](int i, int s) { return size(mod(i + s - 1, p), false, even && s == a); }, &got);
    join(r.members, got);
  }
  // Line (no wrap-around): rightwards, member i sends the partials of chunks p-1, p-2, ..., i+1,
  // one after the other (each once its previous one has arrived, so they pipeline down the
  // line); leftwards, of chunks 0, 1, ..., i-1; member i ends with chunk i from both sides.
  void line_reduce_scatter(const IciRing& r, std::uint64_t m) {
    const auto& g = r.members;
    const int p = static_cast<int>(g.size());
    std::vector<IciMessageId> right(g.size(), kNone), left(g.size(), kNone);
    std::vector<IciMessageId> before, mine;
    for (int i = 0; i + 1 < p; ++i) {
      mine.clear();
      for (int k = 1; k <= p - 1 - i; ++k) {
        const int j = p - k;
        const IciMessageId id = send(g[i], g[i + 1], chunk(m, p, j), ready_[g[i]],
                                     i > 0 ? before[k - 1] : kNone, k > 1 ? mine[k - 2] : kNone);
        mine.push_back(id);
        if (j == i + 1) right[i + 1] = id;
      }
      before.swap(mine);
    }
    before.clear();
    for (int i = p - 1; i > 0; --i) {
      mine.clear();
      for (int k = 1; k <= i; ++k) {
        const int j = k - 1;
        const IciMessageId id =
            send(g[i], g[i - 1], chunk(m, p, j), ready_[g[i]], i < p - 1 ? before[k - 1] : kNone,
                 k > 1 ? mine[k - 2] : kNone);
        mine.push_back(id);
        if (j == i - 1) left[i - 1] = id;
      }
      before.swap(mine);
    }
    for (int i = 0; i < p; ++i) {
      ready_[g[i]].clear();
      if (right[i] != kNone) ready_[g[i]].push_back(right[i]);
      if (left[i] != kNone) ready_[g[i]].push_back(left[i]);
    }
  }
  // Line: rightwards, member i sends chunks i, i-1, ..., 0 (its own first, then each as it
  // arrives); leftwards chunks i, i+1, ..., p-1.
  void line_all_gather(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size());
    line_relay(r, [&](int, int origin, bool) { return chunk(m, p, origin); });
  }
  // Relays over a line: rightwards, member i's k-th message carries what originated at i-k+1;
  // leftwards, at i+k-1. `bytes(i, origin, rightwards)` sizes it.
  template <class F>
  void line_relay(const IciRing& r, F bytes) {
    const auto& g = r.members;
    const int p = static_cast<int>(g.size());
    Receipts got(g.size());
    std::vector<IciMessageId> before, mine;
    for (int i = 0; i + 1 < p; ++i) {
      mine.clear();
      for (int k = 1; k <= i + 1; ++k) {
        const IciMessageId id =
            send(g[i], g[i + 1], bytes(i, i - k + 1, true), k == 1 ? ready_[g[i]] : none_,
                 k > 1 ? before[k - 2] : kNone, k > 1 ? mine[k - 2] : kNone);
        mine.push_back(id);
        got[i + 1].push_back(id);
      }
      before.swap(mine);
    }
    before.clear();
    for (int i = p - 1; i > 0; --i) {
      mine.clear();
      for (int k = 1; k <= p - i; ++k) {
        const IciMessageId id =
            send(g[i], g[i - 1], bytes(i, i + k - 1, false), k == 1 ? ready_[g[i]] : none_,
                 k > 1 ? before[k - 2] : kNone, k > 1 ? mine[k - 2] : kNone);
        mine.push_back(id);
        got[i - 1].push_back(id);
      }
      before.swap(mine);
    }
    join(g, got);
  }
  // Unidirectional relay: step s, member i forwards what originated at i-s+1 for the chips
  // beyond it (p-s chunks).
  void ring_all_to_all(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size());
    Receipts got(r.members.size());
    ring_pass(
        r, +1, p - 1, false,
        [&](int i, int s) {
          std::uint64_t b = 0;
          for (int d = s; d < p; ++d) b += chunk(m, p, mod(i - s + 1 + d, p));
          return b;
        },
        &got);
    join(r.members, got);
  }
  // Bidirectional relay: each chunk goes the shorter way; for even p the opposite chip's chunk
  // splits between the ways.
  void bidir_all_to_all(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size()), a = half_steps(p);
    const bool even = p % 2 == 0;
    // Step s, member i: what originated s-1 chips behind it, for the chips s..a ahead of there.
    const auto relay = [&](int dir) {
      return [&, dir](int i, int s) {
        const int origin = mod(i - dir * (s - 1), p);
        std::uint64_t b = 0;
        for (int d = s; d <= a; ++d) {
          const std::uint64_t c = chunk(m, p, mod(origin + dir * d, p));
          b += even && d == a ? split(c, dir > 0) : c;
        }
        return b;
      };
    };
    Receipts got(r.members.size());
    ring_pass(r, +1, a, false, relay(+1), &got);
    ring_pass(r, -1, a, false, relay(-1), &got);
    join(r.members, got);
  }
  void line_all_to_all(const IciRing& r, std::uint64_t m) {
    const int p = static_cast<int>(r.members.size());
    line_relay(r, [&](int i, int, bool rightwards) {
      std::uint64_t b = 0;
      if (rightwards)
        for (int t = i + 1; t < p; ++t) b += chunk(m, p, t);
      else
        for (int t = 0; t < i; ++t) b += chunk(m, p, t);
      return b;
    });
  }

  IciSchedule& s_;
  Ready& ready_;
  std::vector<IciMessageId> deps_;
  const std::vector<IciMessageId> none_;
};

/// The chips of a group whose group-axis coordinates are all 0, one per group.
std::vector<ChipId> group_leaders(const IciTopology& topo, const std::vector<int>& axes) {
  std::vector<ChipId> v;
  for (ChipId c = 0; c < static_cast<ChipId>(topo.chips()); ++c) {
    const ChipCoord x = topo.coord(c);
    if (std::all_of(axes.begin(), axes.end(), [&](int a) { return x[a] == 0; })) v.push_back(c);
  }
  return v;
}

/// Bytes each member of a ring along `order[level]` holds at that level of a multi-axis
/// reduce-scatter that started from `m` bytes (its chunk at every level before).
std::uint64_t level_bytes(const IciTopology& topo, const std::vector<int>& order, int level,
                          std::uint64_t m, ChipId member) {
  const ChipCoord x = topo.coord(member);
  for (int l = 0; l < level; ++l) m = chunk(m, topo.shape()[order[l]], x[order[l]]);
  return m;
}

IciRing make_ring(const IciTopology& topo, std::vector<ChipId> members) {
  IciRing r;
  r.members = std::move(members);
  r.closing_hops = r.members.size() >= 2 ? topo.hops(r.members.back(), r.members.front()) : 0;
  r.closed = r.members.size() >= 3 && r.closing_hops == 1;
  return r;
}

}  // namespace

const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "all_reduce";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kAllToAll:
      return "all_to_all";
  }
  return "?";
}

const char* collective_algorithm_name(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kBidirRing:
      return "bidir_ring";
    case CollectiveAlgorithm::kTorus:
      return "torus";
  }
  return "?";
}

std::vector<int> collective_axes(const IciTopology& topo, const CollectiveSpec& spec) {
  std::vector<int> v;
  for (int d = 0; d < 3; ++d)
    if (spec.axes[d] && topo.shape()[d] > 1) v.push_back(d);
  return v;
}

IciRing group_ring(const IciTopology& topo, const CollectiveSpec& spec, ChipId chip) {
  const std::vector<int> axes = collective_axes(topo, spec);
  ChipCoord base = topo.coord(chip);
  for (int a : axes) base[a] = 0;
  // Snake (boustrophedon) order: consecutive members are neighbours.
  std::vector<ChipCoord> order{base};
  for (int a : axes) {
    std::vector<ChipCoord> grown;
    for (int v = 0; v < topo.shape()[a]; ++v) {
      const bool forward = v % 2 == 0;
      for (std::size_t i = 0; i < order.size(); ++i) {
        ChipCoord c = order[forward ? i : order.size() - 1 - i];
        c[a] = v;
        grown.push_back(c);
      }
    }
    order.swap(grown);
  }
  std::vector<ChipId> members;
  for (const ChipCoord& c : order) members.push_back(topo.chip(c));
  return make_ring(topo, std::move(members));
}

IciRing axis_ring(const IciTopology& topo, int axis, ChipId chip) {
  ChipCoord c = topo.coord(chip);
  std::vector<ChipId> members;
  for (int v = 0; v < topo.shape()[axis]; ++v) {
    c[axis] = v;
    members.push_back(topo.chip(c));
  }
  return make_ring(topo, std::move(members));
}

CollectivePlan append_collective(IciSchedule& s, const IciTopology& topo,
                                 const CollectiveSpec& spec) {
  CollectivePlan plan;
  plan.first = static_cast<IciMessageId>(s.size());
  const std::vector<int> axes = collective_axes(topo, spec);
  for (int a : axes) plan.group_size *= topo.shape()[a];
  plan.groups = topo.chips() / plan.group_size;
  const std::vector<ChipId> leaders = group_leaders(topo, axes);
  const CollectiveOp op = spec.op;
  const bool rs = op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter;
  const bool ag = op == CollectiveOp::kAllReduce || op == CollectiveOp::kAllGather;
  if (plan.group_size > 1 && spec.algorithm != CollectiveAlgorithm::kTorus) {
    const bool bidir = spec.algorithm == CollectiveAlgorithm::kBidirRing;
    Ready ready(static_cast<std::size_t>(topo.chips()));
    Builder b(s, ready);
    for (ChipId leader : leaders) {
      const IciRing r = group_ring(topo, spec, leader);
      if (op == CollectiveOp::kAllToAll) b.all_to_all(r, spec.bytes, bidir);
      if (rs) b.reduce_scatter(r, spec.bytes, bidir);
      if (ag) b.all_gather(r, spec.bytes, bidir);
    }
  } else if (plan.group_size > 1 && op == CollectiveOp::kAllToAll) {
    Ready ready(static_cast<std::size_t>(topo.chips()));
    Builder b(s, ready);
    for (ChipId leader : leaders)
      b.direct_all_to_all(group_ring(topo, spec, leader).members, spec.bytes);
  } else if (plan.group_size > 1) {
    // Torus: one part of the data per axis, each part reduce-scattering along the axes in its
    // own rotated order (all axes busy at once), then all-gathering back in reverse order.
    const int k = static_cast<int>(axes.size());
    for (int part = 0; part < k; ++part) {
      const std::uint64_t m = chunk(spec.bytes, k, part);
      std::vector<int> order;
      for (int i = 0; i < k; ++i) order.push_back(axes[(part + i) % k]);
      Ready ready(static_cast<std::size_t>(topo.chips()));
      Builder b(s, ready);
      const auto phase = [&](int level, bool reduce) {
        const int a = order[level];
        for (ChipId c = 0; c < static_cast<ChipId>(topo.chips()); ++c) {
          if (topo.coord(c)[a] != 0) continue;
          const IciRing r = axis_ring(topo, a, c);
          const std::uint64_t bytes = level_bytes(topo, order, level, m, c);
          if (reduce)
            b.reduce_scatter(r, bytes, true);
          else
            b.all_gather(r, bytes, true);
        }
      };
      if (rs)
        for (int level = 0; level < k; ++level) phase(level, true);
      if (ag)
        for (int level = k - 1; level >= 0; --level) phase(level, false);
    }
  }
  plan.end = static_cast<IciMessageId>(s.size());
  return plan;
}

}  // namespace systole::models
