// Collectives on the ICI network: the bytes each algorithm moves, the simulated time against
// the alpha-beta formula of the same algorithm on an idle network (stated tolerance: 0.1% plus
// 1 ns; each step's serialisation rounds up to whole picoseconds and uneven chunks differ by a
// byte; the direct all-to-all's formula is an estimate, met within 25%), the packet model
// equal to the flow model on them (their messages never share a link), the time above the
// formula under contention, and nccl-tests' bandwidths.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_flow_model.h"
#include "models/ici/ici_packet_model.h"
#include "tests/unit/ici/ici_test_util.h"

using namespace systole;
using namespace systole::models;

namespace {

constexpr CollectiveOp kOps[] = {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                                 CollectiveOp::kAllGather, CollectiveOp::kAllToAll};
constexpr CollectiveAlgorithm kAlgs[] = {
    CollectiveAlgorithm::kRing, CollectiveAlgorithm::kBidirRing, CollectiveAlgorithm::kTorus};

CollectiveSpec spec(CollectiveOp op, CollectiveAlgorithm a, std::uint64_t bytes,
                    std::array<bool, 3> axes = {true, true, true}) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = bytes;
  s.axes = axes;
  return s;
}

/// Bytes every chip sends: (p-1)/p S to reduce-scatter or all-gather, twice that to all-reduce;
/// a relayed all-to-all forwards (p-1)/2 S (ring, line) or less (bidirectional ring), the
/// direct one (p-1)/p S.
double sent_per_chip(const CollectiveSpec& s, const IciRing& r) {
  const double p = static_cast<double>(r.members.size());
  const double S = static_cast<double>(s.bytes);
  switch (s.op) {
    case CollectiveOp::kAllReduce:
      return 2 * (p - 1) / p * S;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      return (p - 1) / p * S;
    case CollectiveOp::kAllToAll:
      break;
  }
  if (s.algorithm == CollectiveAlgorithm::kTorus) return (p - 1) / p * S;
  if (s.algorithm == CollectiveAlgorithm::kRing) return (p - 1) / 2 * S;
  // A line relays each chunk |o - t| hops: sum over pairs = p (p^2 - 1) / 3 chunks.
  if (!r.closed) return (p * p - 1) / 3 * S / p;
  const int n = static_cast<int>(r.members.size());
  const double a = n % 2 == 0 ? p / 2 : (p - 1) / 2;
  return 2 * S / p * (a * (a + 1) / 2 - (n % 2 == 0 ? a / 2 : 0));
}

struct Slice {
  IciTopologyKind kind;
  std::array<std::int64_t, 3> shape;
};
const Slice kSlices[] = {
    {IciTopologyKind::kTorus, {8, 1, 1}}, {IciTopologyKind::kTorus, {5, 1, 1}},
    {IciTopologyKind::kMesh, {6, 1, 1}},  {IciTopologyKind::kTorus, {4, 4, 1}},
    {IciTopologyKind::kMesh, {4, 3, 1}},  {IciTopologyKind::kTorus, {2, 2, 1}},
    {IciTopologyKind::kTorus, {4, 4, 4}}, {IciTopologyKind::kTorus, {3, 3, 3}},
    {IciTopologyKind::kMesh, {2, 2, 2}},  {IciTopologyKind::kTwistedTorus, {2, 2, 4}}};

/// Whether the torus algorithm's parts stay on disjoint links: every axis of the group is a
/// ring of the same length, or a line of 2, so each phase ends at once on every chip and the
/// parts' phases line up. (On longer lines the middle chips finish a phase first and start the
/// next on links another part still uses.)
bool balanced(const IciTopology& topo, const CollectiveSpec& s) {
  const std::vector<int> axes = collective_axes(topo, s);
  for (int a : axes)
    if (topo.shape()[a] != topo.shape()[axes[0]] ||
        (!axis_ring(topo, a, 0).closed && topo.shape()[a] > 2))
      return false;
  return true;
}

}  // namespace

TEST_CASE("ICI collectives move the bytes their algorithm needs", "[unit][ici]") {
  for (const Slice& sl : kSlices)
    for (CollectiveAlgorithm a : kAlgs)
      for (CollectiveOp op : kOps) {
        const IciTopology topo(sl.kind, sl.shape);
        const CollectiveSpec s = spec(op, a, 720720);  // divisible by every group size here
        IciSchedule sched;
        const CollectivePlan plan = append_collective(sched, topo, s);
        double bytes = 0;
        for (IciMessageId m = plan.first; m < plan.end; ++m) bytes += sched.message(m).bytes;
        INFO(ici_topology_name(sl.kind)
             << " " << topo.shape()[0] << "x" << topo.shape()[1] << "x" << topo.shape()[2] << " "
             << collective_algorithm_name(a) << " " << collective_op_name(op));
        CHECK(plan.group_size * plan.groups == topo.chips());
        const IciRing r = group_ring(topo, s, 0);
        CHECK(bytes == Approx(sent_per_chip(s, r) * topo.chips()));
      }
}

TEST_CASE("ICI collectives meet their alpha-beta formula on an idle network", "[unit][ici]") {
  for (const Slice& sl : kSlices)
    for (CollectiveAlgorithm a : kAlgs)
      for (CollectiveOp op : kOps)
        for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{3u << 20},
                                    std::uint64_t{48'000'017}}) {
          const IciConfig c = test::ici_config(sl.kind, sl.shape);
          const IciTopology topo(c);
          IciFlowModel net(topo, IciLinkTiming::from(c));
          const CollectiveSpec s = spec(op, a, bytes);
          const CollectiveResult r = run_collective(net, s);
          INFO(ici_topology_name(sl.kind)
               << " " << c.shape_text() << " " << collective_algorithm_name(a) << " "
               << collective_op_name(op) << " " << bytes << " B: sim " << r.time_s << " s, formula "
               << r.formula_s << " s");
          if (a == CollectiveAlgorithm::kTorus && op == CollectiveOp::kAllToAll) {
            // The formula is an estimate, not a bound: hops pipeline, so the busiest link's
            // last byte needs only its own remaining hops (the packet model, too, finishes up
            // to ~2% below it). The bound: that link busy from one router latency after the
            // start, and its last byte one link latency from arriving.
            double busiest = 0;
            for (LinkId l = 0; l < static_cast<LinkId>(topo.link_slots()); ++l)
              busiest = std::max(busiest, net.link_busy_ps(l));
            CHECK(r.time_s >= (busiest + static_cast<double>(net.timing().hop_ps())) * 1e-12);
            CHECK(r.time_s <= r.formula_s * 1.25);
          } else if (a == CollectiveAlgorithm::kTorus && !balanced(topo, s)) {
            // Axes of different lengths: the parts' phases drift apart and meet on shared links
            // (the formula assumes they never do).
            CHECK(r.time_s >= r.formula_s - 1e-9);
          } else {
            CHECK(std::abs(r.time_s - r.formula_s) <= 1e-3 * r.formula_s + 1e-9);
          }
        }
}

TEST_CASE("ICI collectives: the packet model gives the flow model's times", "[unit][ici]") {
  // Their messages never meet on a link (the algorithms keep each chip's sends on a link apart),
  // so the uncontended equality of the two models carries over, message by message.
  const Slice slices[] = {{IciTopologyKind::kTorus, {5, 1, 1}},
                          {IciTopologyKind::kMesh, {4, 2, 1}},
                          {IciTopologyKind::kTorus, {4, 4, 1}},
                          {IciTopologyKind::kMesh, {3, 3, 1}}};
  for (const Slice& sl : slices)
    for (CollectiveAlgorithm a : kAlgs)
      for (CollectiveOp op : kOps) {
        const IciConfig c = test::ici_config(sl.kind, sl.shape);
        const IciTopology topo(c);
        if (a == CollectiveAlgorithm::kTorus &&
            (op == CollectiveOp::kAllToAll || !balanced(topo, spec(op, a, 1))))
          continue;  // these share links by design
        IciSchedule s;
        append_collective(s, topo, spec(op, a, 1'000'003));
        IciFlowModel flow(topo, IciLinkTiming::from(c));
        IciPacketModel packet(topo, IciLinkTiming::from(c));
        const IciScheduleResult f = run_schedule(flow, s);
        const IciScheduleResult p = run_schedule(packet, s);
        INFO(c.shape_text() << " " << collective_algorithm_name(a) << " "
                            << collective_op_name(op));
        CHECK(f.arrive_ps == p.arrive_ps);
      }
}

TEST_CASE("ICI collectives exceed the formula under contention", "[unit][ici]") {
  SECTION("torus all-reduce on a 4x4x8 slice: the parts' phases drift onto shared links") {
    const IciConfig c = test::ici_config(IciTopologyKind::kTorus, {4, 4, 8});
    const IciTopology topo(c);
    IciFlowModel net(topo, IciLinkTiming::from(c));
    const CollectiveResult r =
        run_collective(net, spec(CollectiveOp::kAllReduce, CollectiveAlgorithm::kTorus, 96u << 20));
    CHECK(r.time_s > r.formula_s * 1.01);
  }
  SECTION("an all-reduce along x beside an all-to-all over the slice") {
    const IciConfig c = test::ici_config(IciTopologyKind::kTorus, {4, 4, 2});
    const IciTopology topo(c);
    const CollectiveSpec ar = spec(CollectiveOp::kAllReduce, CollectiveAlgorithm::kBidirRing,
                                   8u << 20, {true, false, false});
    IciSchedule s;
    const CollectivePlan plan = append_collective(s, topo, ar);
    append_collective(s, topo,
                      spec(CollectiveOp::kAllToAll, CollectiveAlgorithm::kTorus, 8u << 20));
    for (IciModel m : {IciModel::kFlow, IciModel::kPacket}) {
      IciConfig cm = c;
      cm.model = m;
      const auto net = make_ici_network(cm, topo);
      const IciScheduleResult r = run_schedule(*net, s);
      std::uint64_t end = 0;
      for (IciMessageId i = plan.first; i < plan.end; ++i) end = std::max(end, r.arrive_ps[i]);
      const double formula = alpha_beta_seconds(topo, net->timing(), ar);
      INFO((m == IciModel::kFlow ? "flow" : "packet"));
      CHECK(static_cast<double>(end) * 1e-12 > formula * 1.2);
    }
  }
}

TEST_CASE("ICI collectives: nccl-tests bandwidths and axis groups", "[unit][ici]") {
  const IciConfig c = test::ici_config(IciTopologyKind::kTorus, {16, 1, 1});
  const IciTopology ring(c);
  const double b = IciLinkTiming::from(c).bytes_per_second();
  IciFlowModel net(ring, IciLinkTiming::from(c));
  // A large all-reduce: latency is negligible, so busbw is the link bandwidth one way round
  // the ring (both ways: twice), and algbw = busbw x n / (2 (n - 1)).
  const CollectiveResult uni =
      run_collective(net, spec(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 1u << 30));
  CHECK(uni.busbw == Approx(b).epsilon(0.01));
  CHECK(uni.algbw == Approx(uni.busbw * 16 / 30));
  IciFlowModel net2(ring, IciLinkTiming::from(c));
  const CollectiveResult bi = run_collective(
      net2, spec(CollectiveOp::kAllGather, CollectiveAlgorithm::kBidirRing, 1u << 30));
  CHECK(bi.busbw == Approx(2 * b).epsilon(0.01));
  CHECK(bi.group_size == 16);

  // Groups along x of a 4x4x4 torus: 16 rings of 4, each as fast as a lone ring of 4.
  const IciConfig cube = test::ici_config(IciTopologyKind::kTorus, {4, 4, 4});
  const IciTopology t3(cube);
  IciFlowModel net3(t3, IciLinkTiming::from(cube));
  const CollectiveSpec sx =
      spec(CollectiveOp::kAllReduce, CollectiveAlgorithm::kTorus, 8u << 20, {true, false, false});
  IciSchedule s;
  const CollectivePlan plan = append_collective(s, t3, sx);
  CHECK(plan.group_size == 4);
  CHECK(plan.groups == 16);
  const CollectiveResult rx = run_collective(net3, sx);
  const IciConfig c4 = test::ici_config(IciTopologyKind::kTorus, {4, 1, 1});
  const IciTopology t4(c4);
  IciFlowModel net4(t4, IciLinkTiming::from(c4));
  CHECK(rx.time_s == run_collective(net4, spec(CollectiveOp::kAllReduce,
                                               CollectiveAlgorithm::kBidirRing, 8u << 20))
                         .time_s);
}
