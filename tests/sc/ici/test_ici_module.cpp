// The ICI network's SystemC shell: transfers offered through the chips' ports under the kernel,
// with back-pressure from the ICI DMA queues, arrive exactly when the plain flow model says;
// collectives run through the ports give the plain run's times; the stats read them back.
// Each TEST_CASE is one elaboration (ctest runs each in its own process).
#include <catch2/catch.hpp>

#include <systemc>

#include <functional>
#include <memory>

#include "models/ici/ici_flow_model.h"
#include "models/ici/ici_module.h"
#include "sim/config/node.h"
#include "tests/support/sc_driver.h"

using namespace systole;
using namespace systole::models;

namespace {

using test::Driver;

IciConfig slice_config(const char* shape, std::int64_t dma_queue) {
  config::Node n = config::Node::map();
  n.set("shape", config::Node::scalar(shape));
  IciConfig c = IciConfig::schema().load(n, "ici");
  c.dma_queue = dma_queue;
  return c;
}

std::uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

}  // namespace

TEST_CASE("ICI module: transfers wait for DMA places and arrive at the flow model's times",
          "[sc][ici]") {
  // Chip 0 offers six 1 MiB transfers to chip 5 (two hops) with room for two at a time: each
  // of transfers 2..5 is refused until the one two before it arrives, then starts at once.
  const IciConfig c = slice_config("4x4", 2);
  IciNetworkModule net("ici", c);
  std::vector<std::uint64_t> arrive(6, 0);
  Driver d("chip0", [&] {
    for (int k = 0; k < 6; ++k) net.send({0, 5, 1u << 20, [&arrive, k] { arrive[k] = now_ps(); }});
  });
  sc_core::sc_start();

  IciSchedule s;
  for (IciMessageId k = 0; k < 6; ++k)
    k < 2 ? s.add(0, 5, 1u << 20) : s.add(0, 5, 1u << 20, {k - 2});
  const IciTopology topo(c);
  IciFlowModel plain(topo, IciLinkTiming::from(c));
  const IciScheduleResult r = run_schedule(plain, s);
  CHECK(arrive == r.arrive_ps);
  // Transfers 0 and 1 share the links and arrive together, freeing both places: 2 is refused
  // once and 3 is taken at once; likewise 4 and 5.
  CHECK(net.refusals() == 2);
  CHECK(net.network().in_flight() == 0);
}

TEST_CASE("ICI module: collectives through the ports equal the plain run, their stats",
          "[sc][ici]") {
  const IciConfig c = slice_config("4x4x4", 16);
  IciNetworkModule net("ici", c);
  CollectiveSpec ar;
  ar.op = CollectiveOp::kAllReduce;
  ar.algorithm = CollectiveAlgorithm::kTorus;
  ar.bytes = 16u << 20;
  CollectiveSpec rs = ar;
  rs.op = CollectiveOp::kReduceScatter;
  rs.algorithm = CollectiveAlgorithm::kBidirRing;
  rs.axes = {true, false, false};
  Driver d("host", [&] {
    sc_core::sc_event done;
    net.start_collective(ar, [&](const CollectiveResult&) { done.notify(); });
    sc_core::wait(done);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    net.start_collective(rs);
  });
  sc_core::sc_start();

  REQUIRE(net.collectives().size() == 2);
  const IciTopology topo(c);
  IciFlowModel plain_ar(topo, IciLinkTiming::from(c));
  IciFlowModel plain_rs(topo, IciLinkTiming::from(c));
  const CollectiveResult a = run_collective(plain_ar, ar);
  const CollectiveResult b = run_collective(plain_rs, rs);
  CHECK(net.collectives()[0].result.time_s == a.time_s);
  CHECK(net.collectives()[1].result.time_s == b.time_s);
  CHECK(net.collectives()[1].result.group_size == 4);
  CHECK(net.refusals() == 0);

  stats::StatGroup root("ici", "ici");
  stats::Timebase tb;
  tb.period_ps = 952;
  tb.total_cycles = static_cast<std::int64_t>(now_ps() / 952);
  net.declare_stats(root, tb);
  CHECK(std::get<std::int64_t>(root.find("links")->value(stats::kRun)) == 64 * 6);
  CHECK(std::get<std::int64_t>(root.find("collectives")->value(stats::kRun)) == 2);
  const auto* c0 = root.find_group("collective0");
  REQUIRE(c0 != nullptr);
  CHECK(std::get<double>(c0->find("time")->value(stats::kRun)) == a.time_s);
  CHECK(std::get<std::string>(c0->find("op")->value(stats::kRun)) == "all_reduce");
  CHECK(std::get<double>(c0->find("busbw")->value(stats::kRun)) == a.busbw);
  // Every byte crosses one link per hop; ring neighbours are one hop apart.
  IciSchedule s;
  append_collective(s, topo, ar);
  append_collective(s, topo, rs);
  std::int64_t hop_bytes = 0;
  for (IciMessageId m = 0; m < s.size(); ++m)
    hop_bytes += static_cast<std::int64_t>(s.message(m).bytes) *
                 topo.hops(s.message(m).src, s.message(m).dst);
  CHECK(std::get<std::int64_t>(root.find("bytes")->value(stats::kRun)) == hop_bytes);
  const double umax = std::get<double>(root.find("max_link_utilization")->value(stats::kRun));
  CHECK(umax > 0.3);
  CHECK(umax <= 1.0);
  const auto* link = root.find_group("c0_xp");
  REQUIRE(link != nullptr);
  CHECK(link->kind() == "ici_link");
  CHECK(std::get<std::int64_t>(link->find("bytes")->value(stats::kRun)) > 0);
}

TEST_CASE("ICI module: a small DMA queue holds a direct all-to-all back", "[sc][ici]") {
  // Each chip of a 4x4 torus sends 15 chunks at once; a queue of 2 lets it run two at a time.
  const IciConfig c = slice_config("4x4", 2);
  IciNetworkModule net("ici", c);
  CollectiveSpec a2a;
  a2a.op = CollectiveOp::kAllToAll;
  a2a.algorithm = CollectiveAlgorithm::kTorus;
  a2a.bytes = 8u << 20;
  Driver d("host", [&] { net.start_collective(a2a); });
  sc_core::sc_start();
  REQUIRE(net.collectives().size() == 1);
  const IciTopology topo(c);
  IciFlowModel plain(topo, IciLinkTiming::from(c));
  const CollectiveResult free = run_collective(plain, a2a);
  CHECK(net.collectives()[0].result.time_s > free.time_s);
  CHECK(net.refusals() == 0);  // collective messages wait in the port's backlog, never refused
}
