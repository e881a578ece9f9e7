// The ICI fidelity ladder: the flow-level model against the packet-level reference.
// 1. Uncontended transfers (each on links no other transfer uses while it runs): both models
//    give the same arrival time to the picosecond, and it is the virtual cut-through formula of
//    ici_network.h: start + hops x (router + link latency) + ceil(bytes x packet_ps / packet).
//    Hundreds of random slices, link timings, sizes (0, 1, packet +-1, large), start times and
//    dependency chains.
// 2. Contended patterns: the bound, set before measuring (models/ici/README.md), is 2% of each
//    transfer's duration in the packet model, |arrival_flow - arrival_packet| <= 0.02 x
//    (arrival_packet - start), over 40 random patterns on the small slices 2x2x1 ... 4x4x2
//    (torus, mesh, twisted where the shape allows), TPU v4 links (50 GB/s, 1 us, 20 ns router)
//    with 4 KiB packets, 3-8 transfers of 8-32 MiB between random chips starting within 50 us,
//    at least two of them sharing a link. The measured worst case is printed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>

#include "models/ici/ici_flow_model.h"
#include "models/ici/ici_packet_model.h"
#include "models/ici/ici_schedule.h"
#include "tests/unit/ici/ici_test_util.h"

using namespace systole;
using namespace systole::models;

namespace {

using Rng = std::mt19937_64;

std::int64_t uniform(Rng& r, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(r);
}

/// A random slice: 1-D, 2-D or 3-D, torus, mesh or (when the shape allows) twisted.
IciConfig random_slice(Rng& r) {
  static const std::array<std::int64_t, 3> shapes[] = {{8, 1, 1}, {5, 1, 1}, {2, 2, 1}, {4, 4, 1},
                                                       {3, 5, 1}, {4, 2, 2}, {4, 4, 2}, {4, 4, 4},
                                                       {2, 2, 4}, {4, 4, 8}, {8, 4, 1}, {3, 3, 3}};
  const auto& s = shapes[uniform(r, 0, std::size(shapes) - 1)];
  IciConfig c = test::ici_config(IciTopologyKind::kTorus, s);
  const std::int64_t k = uniform(r, 0, 2);
  c.topology = k == 0   ? IciTopologyKind::kTorus
               : k == 1 ? IciTopologyKind::kMesh
                        : IciTopologyKind::kTwistedTorus;
  const bool twistable = (s[0] == 4 && s[2] == 8) || (s[0] == 2 && s[2] == 4) ||
                         (s[0] == 8 && s[1] == 4) || (s[0] == 4 && s[1] == 2 && s[2] == 2) ||
                         (s[0] == 4 && s[1] == 4 && s[2] == 2);
  if (c.topology == IciTopologyKind::kTwistedTorus && !twistable)
    c.topology = IciTopologyKind::kTorus;
  return c;
}

/// Random link timing: bandwidths that are not a whole number of ps per byte, latencies from
/// 0 to 2 us, packets 64 B - 4 KiB, credits at or above the credit loop.
void random_links(Rng& r, IciConfig& c) {
  c.link_bandwidth = BytesPerSecond(static_cast<double>(uniform(r, 10'000, 200'000)) * 1e6);
  c.link_latency = Picoseconds(static_cast<std::uint64_t>(uniform(r, 0, 2'000'000)));
  c.router_latency = Picoseconds(static_cast<std::uint64_t>(uniform(r, 0, 200'000)));
  c.packet_size = Bytes(static_cast<std::uint64_t>(64) << uniform(r, 0, 6));
  c.credits = test::loop_credits(c) + (uniform(r, 0, 1) ? 0 : uniform(r, 1, 50));
}

std::uint64_t random_bytes(Rng& r, std::uint64_t packet) {
  switch (uniform(r, 0, 5)) {
    case 0:
      return static_cast<std::uint64_t>(uniform(r, 0, 2));
    case 1:
      return packet + static_cast<std::uint64_t>(uniform(r, -1, 1));
    case 2:
      return static_cast<std::uint64_t>(uniform(r, 1, 4 * 1024));
    default:
      return static_cast<std::uint64_t>(uniform(r, 1, 512 * 1024));
  }
}

/// Chains of transfers: each transfer waits for the one before it in its chain; different
/// chains never share a link, so no transfer ever meets another on a link.
IciSchedule uncontended(Rng& r, const IciTopology& topo, std::uint64_t packet) {
  IciSchedule s;
  std::set<LinkId> taken;
  std::vector<LinkId> path;
  const int chains = static_cast<int>(uniform(r, 1, 6));
  for (int c = 0, tries = 0; c < chains && tries < 200; ++tries) {
    const int length = static_cast<int>(uniform(r, 1, 4));
    std::vector<std::pair<ChipId, ChipId>> hops;
    std::set<LinkId> mine;
    bool ok = true;
    for (int i = 0; i < length && ok; ++i) {
      const auto a = static_cast<ChipId>(uniform(r, 0, topo.chips() - 1));
      const auto b =
          uniform(r, 0, 9) == 0 ? a : static_cast<ChipId>(uniform(r, 0, topo.chips() - 1));
      path.clear();
      topo.route(a, b, path);
      for (LinkId l : path) {
        ok = ok && taken.count(l) == 0;
        mine.insert(l);
      }
      hops.emplace_back(a, b);
    }
    if (!ok) continue;
    taken.insert(mine.begin(), mine.end());
    IciMessageId prev = 0;
    for (std::size_t i = 0; i < hops.size(); ++i) {
      const auto release = static_cast<std::uint64_t>(uniform(r, 0, 3'000'000));
      const std::uint64_t bytes = random_bytes(r, packet);
      prev = i == 0 ? s.add(hops[i].first, hops[i].second, bytes, {}, release)
                    : s.add(hops[i].first, hops[i].second, bytes, {prev}, release);
    }
    ++c;
  }
  return s;
}

}  // namespace

TEST_CASE("ICI flow model equals the packet model on uncontended transfers", "[unit][ici]") {
  Rng rng(20260613);
  int cases = 0, transfers = 0;
  for (int n = 0; n < 400; ++n) {
    IciConfig c = random_slice(rng);
    random_links(rng, c);
    const IciTopology topo(c);
    const IciLinkTiming t = IciLinkTiming::from(c);
    const IciSchedule s = uncontended(rng, topo, t.packet_bytes);
    IciFlowModel flow(topo, t);
    IciPacketModel packet(topo, t);
    const IciScheduleResult f = run_schedule(flow, s);
    const IciScheduleResult p = run_schedule(packet, s);
    INFO("case " << n << ": " << ici_topology_name(c.topology) << " " << c.shape_text()
                 << ", packet " << t.packet_bytes << " B / " << t.packet_ps << " ps, link "
                 << t.link_ps << " ps, router " << t.router_ps << " ps, credits " << t.credits);
    for (IciMessageId m = 0; m < s.size(); ++m) {
      const auto& msg = s.message(m);
      const std::uint64_t expect =
          p.start_ps[m] + t.transfer_ps(msg.bytes, topo.hops(msg.src, msg.dst));
      INFO("transfer " << m << ": " << msg.src << " -> " << msg.dst << ", " << msg.bytes << " B");
      REQUIRE(f.start_ps[m] == p.start_ps[m]);
      REQUIRE(p.arrive_ps[m] == expect);
      REQUIRE(f.arrive_ps[m] == expect);
    }
    ++cases;
    transfers += static_cast<int>(s.size());
  }
  CHECK(cases == 400);
  CHECK(transfers > 1000);
}

TEST_CASE("ICI packet model: too few credits hold a message back, the flow model caps it",
          "[unit][ici]") {
  // One 2-hop transfer; with 4 credits the loop (2 x 1 us + 20 ns + 10.24 ns) allows
  // 4 x 10.24 / 2030.24 of the link. Both models must be slower than the uncontended formula
  // and the flow model's cap must be within 2% of the packet model on 4 MiB.
  IciConfig c = test::ici_config(IciTopologyKind::kMesh, {3, 1, 1});
  c.credits = 4;
  const IciTopology topo(c);
  const IciLinkTiming t = IciLinkTiming::from(c);
  IciSchedule s;
  s.add(0, 2, 4u << 20);
  IciFlowModel flow(topo, t);
  IciPacketModel packet(topo, t);
  const double f = static_cast<double>(run_schedule(flow, s).end_ps);
  const double p = static_cast<double>(run_schedule(packet, s).end_ps);
  CHECK(p > static_cast<double>(t.transfer_ps(4u << 20, 2)) * 10);
  CHECK(std::abs(f - p) / p < 0.02);
}

namespace {

/// Worst relative arrival difference (flow vs packet, of the packet duration) over `count`
/// random contended patterns; `mib` the size range (log-uniform), `packet` bytes per packet.
struct Agreement {
  double worst = 0;
  double mean = 0;
  std::string where;
  int transfers = 0;
};

Agreement contended(std::uint64_t seed, int count, double min_mib, double max_mib,
                    std::uint64_t packet, std::int64_t credits, bool check) {
  Rng rng(seed);
  static const std::array<std::int64_t, 3> shapes[] = {{2, 2, 1}, {2, 2, 2}, {4, 2, 1},
                                                       {4, 4, 1}, {4, 2, 2}, {4, 4, 2}};
  Agreement a;
  double sum = 0;
  int patterns = 0;
  while (patterns < count) {
    const auto& shape = shapes[uniform(rng, 0, std::size(shapes) - 1)];
    const std::int64_t k = uniform(rng, 0, 2);
    IciTopologyKind kind = k == 0   ? IciTopologyKind::kTorus
                           : k == 1 ? IciTopologyKind::kMesh
                                    : IciTopologyKind::kTwistedTorus;
    const bool twistable = shape == std::array<std::int64_t, 3>{4, 2, 2} ||
                           shape == std::array<std::int64_t, 3>{4, 4, 2};
    if (kind == IciTopologyKind::kTwistedTorus && !twistable) kind = IciTopologyKind::kTorus;
    IciConfig c = test::ici_config(kind, shape);
    c.packet_size = Bytes(packet);
    c.credits = credits;
    REQUIRE(IciLinkTiming::from(c).credit_share() == 1.0);
    const IciTopology topo(c);
    const IciLinkTiming t = IciLinkTiming::from(c);
    IciSchedule s;
    std::vector<int> uses(static_cast<std::size_t>(topo.link_slots()), 0);
    std::vector<LinkId> path;
    const int n = static_cast<int>(uniform(rng, 3, 8));
    for (int i = 0; i < n; ++i) {
      const auto src = static_cast<ChipId>(uniform(rng, 0, topo.chips() - 1));
      auto dst = static_cast<ChipId>(uniform(rng, 0, topo.chips() - 2));
      if (dst >= src) ++dst;
      const double mib = std::exp2(
          std::uniform_real_distribution<double>(std::log2(min_mib), std::log2(max_mib))(rng));
      const auto release = static_cast<std::uint64_t>(uniform(rng, 0, 50'000'000));
      s.add(src, dst, static_cast<std::uint64_t>(mib * (1 << 20)), {}, release);
      path.clear();
      topo.route(src, dst, path);
      for (LinkId l : path) ++uses[l];
    }
    if (*std::max_element(uses.begin(), uses.end()) < 2) continue;  // not contended
    IciFlowModel flow(topo, t);
    IciPacketModel packet_model(topo, t);
    const IciScheduleResult f = run_schedule(flow, s);
    const IciScheduleResult p = run_schedule(packet_model, s);
    for (IciMessageId m = 0; m < s.size(); ++m) {
      const double dur = static_cast<double>(p.arrive_ps[m] - p.start_ps[m]);
      const double err =
          std::abs(static_cast<double>(f.arrive_ps[m]) - static_cast<double>(p.arrive_ps[m])) / dur;
      sum += err;
      ++a.transfers;
      if (err > a.worst) {
        a.worst = err;
        a.where = std::string(ici_topology_name(kind)) + " " + c.shape_text() + ", pattern " +
                  std::to_string(patterns) + ", transfer " + std::to_string(m);
      }
      if (check) {
        INFO("pattern " << patterns << " " << ici_topology_name(kind) << " " << c.shape_text()
                        << " transfer " << m);
        CHECK(err <= 0.02);
      }
    }
    ++patterns;
  }
  a.mean = sum / a.transfers;
  return a;
}

void print(const char* what, const Agreement& a) {
  std::cout << "ICI flow vs packet, " << what << ": worst |error| " << a.worst * 100 << "%, mean "
            << a.mean * 100 << "% of the transfer's duration over " << a.transfers
            << " transfers (worst: " << a.where << ")\n";
}

}  // namespace

TEST_CASE("ICI flow model within 2% of the packet model on contended patterns", "[unit][ici]") {
  // The stated domain: 4 KiB packets, 8-32 MiB transfers (see the file's header).
  print("contended, 8-32 MiB", contended(777, 40, 8, 32, 4096, 64, true));
}

// Not a bound: how the agreement degrades with shorter transfers and smaller packets (the
// figures quoted in models/ici/README.md). Run with: ici_unit_tests "[report]".
TEST_CASE("ICI flow vs packet agreement report", "[.][ici][report]") {
  print("contended, 8-32 MiB, 512 B packets", contended(777, 40, 8, 32, 512, 256, false));
  print("contended, 1-8 MiB, 512 B packets", contended(778, 100, 1, 8, 512, 256, false));
  print("contended, 64 KiB-1 MiB, 512 B packets",
        contended(779, 100, 1.0 / 16, 1, 512, 256, false));
}
