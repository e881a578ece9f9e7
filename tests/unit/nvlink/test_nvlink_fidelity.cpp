// The NVSwitch fabric on the ICI network models: routes, and the fidelity ladder — the
// packet-level reference and the flow-level default give the formula's arrival time, to the
// picosecond, to transfers that share no link (random nodes, timings and chains), and agree
// within the bound stated before measuring (models/nvlink/README.md) on random contended
// patterns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "models/ici/ici_schedule.h"
#include "models/nvlink/nvlink_network.h"
#include "sim/config/node.h"

using namespace systole;
using namespace systole::models;

namespace {

NvlinkConfig defaults() { return NvlinkConfig::schema().load(config::Node::map(), "nvlink"); }

/// A random node: 2-16 GPUs, 1-18 links of 10-60 GB/s at 0.5-1 efficiency (picoseconds per
/// byte not whole), 0-1 us links, 0-500 ns switch, 64 B - 4 KiB packets, credits that cover
/// the credit loop.
NvlinkConfig random_node(std::mt19937_64& rng) {
  NvlinkConfig c = defaults();
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  c.gpus = pick(2, 16);
  c.links_per_gpu = pick(1, 18);
  c.link_bandwidth = BytesPerSecond(static_cast<double>(pick(10, 60)) * 1e9 + pick(0, 999) * 1e5);
  c.link_efficiency = 0.5 + 0.5 * static_cast<double>(pick(0, 1000)) / 1000.0;
  c.link_latency = Picoseconds(static_cast<std::uint64_t>(pick(0, 1'000'000)));
  c.switch_latency = Picoseconds(static_cast<std::uint64_t>(pick(0, 500'000)));
  c.packet_size = Bytes(static_cast<std::uint64_t>(pick(64, 4096)));
  const IciLinkTiming t = nvlink_timing(c);
  const std::uint64_t loop = 2 * t.link_ps + t.router_ps + t.packet_ps;
  c.credits = static_cast<std::int64_t>((loop + t.packet_ps - 1) / t.packet_ps) + pick(0, 64);
  return c;
}

}  // namespace

TEST_CASE("NVSwitch routes: GPU to GPU over two trunks, to and from the fabric over one",
          "[unit][nvlink]") {
  const NvSwitchRoutes r(8);
  CHECK(r.link_slots() == 16);
  std::vector<LinkId> path;
  r.route(2, 5, path);
  CHECK(path == std::vector<LinkId>{r.up(2), r.down(5)});
  path.clear();
  r.route(3, r.fabric(), path);
  CHECK(path == std::vector<LinkId>{r.up(3)});
  path.clear();
  r.route(r.fabric(), 7, path);
  CHECK(path == std::vector<LinkId>{r.down(7)});
  path.clear();
  r.route(4, 4, path);
  CHECK(path.empty());
}

TEST_CASE("NVLink fidelity: both models give uncontended transfers the formula's time",
          "[unit][nvlink]") {
  std::mt19937_64 rng(1313);
  int transfers = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const NvlinkConfig c = random_node(rng);
    const int n = static_cast<int>(c.gpus);
    const NvSwitchRoutes routes(n);
    // Chains of transfers from GPU i to perm[i] (distinct sources and destinations, so no two
    // chains share a trunk), or one GPU's chain to or from the fabric; sizes 0, 1, a packet
    // +-1, up to 512 KiB; random start delays; each waits for the one before.
    std::vector<ChipId> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const std::uint64_t pkt = c.packet_size.value();
    const std::uint64_t sizes[] = {
        0,          1,
        pkt - 1,    pkt,
        pkt + 1,    3 * pkt + 7,
        512 * 1024, std::uniform_int_distribution<std::uint64_t>(1, 1 << 19)(rng)};
    IciSchedule s;
    std::vector<int> hops;
    for (int i = 0; i < n; ++i) {
      ChipId src = static_cast<ChipId>(i), dst = perm[static_cast<std::size_t>(i)];
      if (i == 0 && trial % 3 == 1) dst = routes.fabric();
      if (i == 0 && trial % 3 == 2) src = routes.fabric();  // perm[0]'s down trunk is its own
      std::vector<IciMessageId> prev;
      for (int k = 0; k < 4; ++k) {
        const std::uint64_t b = sizes[std::uniform_int_distribution<int>(0, 7)(rng)];
        const IciMessageId m = s.add(src, dst, b, prev);
        s.set_delay(m, std::uniform_int_distribution<std::uint64_t>(0, 2'000'000)(rng));
        std::vector<LinkId> path;
        routes.route(src, dst, path);
        hops.push_back(static_cast<int>(path.size()));
        prev = {m};
      }
    }
    for (NvlinkModel model : {NvlinkModel::kFlow, NvlinkModel::kPacket}) {
      NvlinkConfig cm = c;
      cm.model = model;
      const auto net = make_nvlink_network(cm, routes);
      const IciScheduleResult r = run_schedule(*net, s);
      for (IciMessageId m = 0; m < s.size(); ++m) {
        const std::uint64_t want =
            r.start_ps[m] + net->timing().transfer_ps(s.message(m).bytes, hops[m]);
        INFO("trial " << trial << " message " << m << " model " << static_cast<int>(model));
        REQUIRE(r.arrive_ps[m] == want);
        ++transfers;
      }
    }
  }
  CHECK(transfers > 1000);
}

// Bound stated before measuring (models/nvlink/README.md): |arrival_flow - arrival_packet| <=
// 2% of the transfer's duration in the packet model, for every transfer of 40 random patterns
// on 2-8 GPUs, HGX H100 links (18 x 25 GB/s x 0.783) with 4 KiB packets, 3-8 transfers of
// 1-8 MiB between random GPUs (or the fabric) starting within 20 us, two of them on a common
// trunk.
// Measured after the bound was set: worst 0.24%, mean 0.017% over 218 transfers, worst
// difference 38 ns (printed below). Before the flow model cut flows into per-hop segments
// (each with its router buffer, credit window and a hop's delay on rate changes) it missed:
// worst 4.8%, mean 0.27%, 1.6 us, as a flow took its share on both trunks at once.
TEST_CASE("NVLink fidelity: flow within 2% of packet on contended patterns", "[unit][nvlink]") {
  std::mt19937_64 rng(7);
  double worst = 0, sum = 0, worst_ns = 0;
  int count = 0;
  for (int pattern = 0; pattern < 40; ++pattern) {
    NvlinkConfig c = defaults();
    c.gpus = std::uniform_int_distribution<int>(2, 8)(rng);
    c.packet_size = Bytes(4096);
    c.credits = 64;
    const NvSwitchRoutes routes(static_cast<int>(c.gpus));
    auto node = [&] {
      return static_cast<ChipId>(
          std::uniform_int_distribution<int>(0, static_cast<int>(c.gpus))(rng));
    };
    IciSchedule s;
    const int k = std::uniform_int_distribution<int>(3, 8)(rng);
    for (int i = 0; i < k; ++i) {
      ChipId a = i == 0 ? static_cast<ChipId>(rng() % static_cast<std::uint64_t>(c.gpus)) : node();
      ChipId b = node();
      while (b == a) b = node();
      if (i == 1) {  // shares the first transfer's up trunk
        a = s.message(0).src;
        while (b == a) b = node();
      }
      const std::uint64_t bytes =
          std::uniform_int_distribution<std::uint64_t>(1 << 20, 8 << 20)(rng);
      s.add(a, b, bytes, {}, std::uniform_int_distribution<std::uint64_t>(0, 20'000'000)(rng));
    }
    NvlinkConfig cp = c, cf = c;
    cp.model = NvlinkModel::kPacket;
    cf.model = NvlinkModel::kFlow;
    const auto np = make_nvlink_network(cp, routes);
    const auto nf = make_nvlink_network(cf, routes);
    const IciScheduleResult rp = run_schedule(*np, s), rf = run_schedule(*nf, s);
    for (IciMessageId m = 0; m < s.size(); ++m) {
      const double dur = static_cast<double>(rp.arrive_ps[m] - rp.start_ps[m]);
      const double err =
          std::abs(static_cast<double>(rf.arrive_ps[m]) - static_cast<double>(rp.arrive_ps[m])) /
          dur;
      worst = std::max(worst, err);
      worst_ns = std::max(worst_ns, err * dur * 1e-3);
      sum += err;
      ++count;
      INFO("pattern " << pattern << " transfer " << m);
      CHECK(err <= 0.02);
    }
  }
  WARN("contended: worst " << worst * 100 << "%, mean " << sum / count * 100 << "% over " << count
                           << " transfers; worst difference " << worst_ns << " ns");
}
