#pragma once
// Collectives over the ICI network: all-reduce, reduce-scatter, all-gather and all-to-all by
// ring, bidirectional ring or multi-dimensional torus algorithms, expressed as message
// schedules (IciSchedule) that either network model plays, with the alpha-beta (Hockney) time
// of the same algorithm computed beside each and nccl-tests' algorithm and bus bandwidths.
// Sizes follow nccl-tests (NVIDIA/nccl-tests doc/PERFORMANCE.md): `bytes` is S, the whole array
// per chip — the all-reduce buffer, the reduce-scatter input, the all-gather output, the
// all-to-all send buffer; each chip's shard is S / p for a group of p chips.
// Assumptions: reductions are free (the chip adds at link rate, overlapped); a chip starts a
// phase of a multi-phase algorithm once it has received everything of the phase before.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/ici/ici_network.h"
#include "models/ici/ici_schedule.h"

namespace systole::models {

enum class CollectiveOp { kAllReduce, kReduceScatter, kAllGather, kAllToAll };
enum class CollectiveAlgorithm { kRing, kBidirRing, kTorus };

const char* collective_op_name(CollectiveOp op);
const char* collective_algorithm_name(CollectiveAlgorithm a);

/// One collective: what, how, how much, and over which chips.
struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kTorus;
  std::uint64_t bytes = 0;                       ///< S, as nccl-tests defines it
  std::array<bool, 3> axes{{true, true, true}};  ///< torus axes of a group; all: every chip
};

/// The chips of one group along a closed ring or an open line, in ring order.
struct IciRing {
  std::vector<ChipId> members;
  bool closed = false;   ///< the last member reaches the first in one hop (and p >= 3)
  int closing_hops = 0;  ///< hops from the last member to the first
};

/// Where a collective's messages sit in a schedule, and its group.
struct CollectivePlan {
  IciMessageId first = 0;  ///< its messages are [first, end)
  IciMessageId end = 0;
  int group_size = 1;  ///< chips per group (p)
  int groups = 1;      ///< groups running side by side
};

/// The axes of `spec` that have more than one chip, in x, y, z order.
std::vector<int> collective_axes(const IciTopology& topo, const CollectiveSpec& spec);
/// The ring a ring algorithm walks in the group of `chip`: the group's chips in snake order.
IciRing group_ring(const IciTopology& topo, const CollectiveSpec& spec, ChipId chip);
/// The ring along axis `axis` through `chip` (coordinate order).
IciRing axis_ring(const IciTopology& topo, int axis, ChipId chip);

/// Appends the messages of `spec` to `s` (each group's first messages wait for nothing).
CollectivePlan append_collective(IciSchedule& s, const IciTopology& topo,
                                 const CollectiveSpec& spec);

/// The alpha-beta time of `spec`'s algorithm on an idle network, in seconds: each step costs
/// alpha (hops x (router + link latency)) plus its bytes over the link bandwidth
/// (models/ici/README.md has the formula of every case).
double alpha_beta_seconds(const IciTopology& topo, const IciLinkTiming& t,
                          const CollectiveSpec& spec);

/// The idle-network time of point-to-point messages of `bytes` between each pair of chips, all
/// started at once on disjoint routes: the slowest pair's hops x (router + link latency) plus
/// its serialisation (IciLinkTiming::transfer_ps), in seconds.
double point_to_point_seconds(const IciTopology& topo, const IciLinkTiming& t,
                              const std::vector<std::pair<ChipId, ChipId>>& pairs,
                              std::uint64_t bytes);

/// nccl-tests' bus-bandwidth factor for `op` on `p` ranks: 2(p-1)/p for all-reduce, (p-1)/p
/// for the others.
double bus_factor(CollectiveOp op, int p);

/// A collective's measured figures.
struct CollectiveResult {
  double time_s = 0;     ///< first message start to last arrival
  double algbw = 0;      ///< S / time (B/s)
  double busbw = 0;      ///< algbw x bus_factor
  double formula_s = 0;  ///< alpha_beta_seconds on an idle network
  int group_size = 1;
  std::size_t messages = 0;
};

/// Fills the bandwidths of `r` from its time (S and the group size from `spec` and `plan`).
CollectiveResult collective_result(const CollectiveSpec& spec, const CollectivePlan& plan,
                                   double time_s, double formula_s);

/// Runs `spec` alone on `net` (idle) and measures it.
CollectiveResult run_collective(IciNetwork& net, const CollectiveSpec& spec);

}  // namespace systole::models
