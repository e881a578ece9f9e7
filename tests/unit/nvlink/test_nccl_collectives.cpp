// NCCL's collectives on an NVSwitch node: the algorithm, protocol and channels NCCL's cost model
// picks, the bytes each schedule moves, the alpha-beta formula on an idle node, NVLS against the
// ring, and the packet-level reference against the flow-level default.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/nvlink/nccl_collective.h"
#include "models/nvlink/nvlink_stats.h"
#include "sim/config/node.h"

using namespace systole;
using namespace systole::models;

namespace {

NvlinkConfig h100() { return NvlinkConfig::schema().load(config::Node::map(), "nvlink"); }

NvlinkConfig a100() {
  NvlinkConfig c = h100();
  c.links_per_gpu = 12;
  c.nvls = false;
  c.nccl_channels = 24;
  return c;
}

NcclResult run(const NvlinkConfig& c, NcclSpec spec, std::vector<std::uint64_t>* up = nullptr,
               std::vector<std::uint64_t>* down = nullptr) {
  const NvSwitchRoutes routes(static_cast<int>(c.gpus));
  const auto net = make_nvlink_network(c, routes);
  const NcclResult r = run_nccl(*net, routes, c, spec);
  for (int g = 0; g < routes.gpus(); ++g) {
    if (up) up->push_back(net->link_bytes()[routes.up(static_cast<ChipId>(g))]);
    if (down) down->push_back(net->link_bytes()[routes.down(static_cast<ChipId>(g))]);
  }
  return r;
}

NcclSpec spec_of(CollectiveOp op, std::uint64_t bytes) {
  NcclSpec s;
  s.op = op;
  s.bytes = bytes;
  return s;
}

}  // namespace

TEST_CASE("NCCL choice: LL, then LL128, then Simple as the size grows, fewer channels when small",
          "[unit][nvlink]") {
  const NvlinkConfig c = a100();
  std::vector<NcclProtocol> seen;
  for (std::uint64_t b = 1024; b <= (8ull << 30); b *= 2) {
    const NcclChoice ch = nccl_choose(c, spec_of(CollectiveOp::kAllReduce, b));
    CHECK(ch.algorithm == NcclAlgorithm::kRing);
    if (seen.empty() || seen.back() != ch.protocol) seen.push_back(ch.protocol);
  }
  CHECK(seen ==
        std::vector<NcclProtocol>{NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple});
  CHECK(nccl_choose(c, spec_of(CollectiveOp::kAllReduce, 4096)).channels < 24);
  CHECK(nccl_choose(c, spec_of(CollectiveOp::kAllReduce, 1ull << 30)).channels == 24);
}

TEST_CASE("NCCL choice: NVLS for large all-reduces on H100, ring for the rest", "[unit][nvlink]") {
  const NvlinkConfig c = h100();
  const NcclChoice big = nccl_choose(c, spec_of(CollectiveOp::kAllReduce, 1ull << 30));
  CHECK(big.algorithm == NcclAlgorithm::kNvls);
  CHECK(big.channels == 16);
  CHECK(nccl_choose(c, spec_of(CollectiveOp::kAllGather, 1ull << 30)).algorithm ==
        NcclAlgorithm::kRing);
  CHECK(nccl_choose(c, spec_of(CollectiveOp::kAllToAll, 1ull << 30)).algorithm ==
        NcclAlgorithm::kDirect);
  NcclSpec forced = spec_of(CollectiveOp::kAllReduce, 1ull << 30);
  forced.algorithm = NcclAlgorithm::kRing;
  CHECK(nccl_choose(c, forced).algorithm == NcclAlgorithm::kRing);
  forced.algorithm = NcclAlgorithm::kNvls;
  CHECK_THROWS_AS(nccl_choose(a100(), forced), ConfigError);
}

TEST_CASE("NCCL NVLS chunk: 128 KiB from 1 GiB, then 64, 32, 16 KiB as the size shrinks",
          "[unit][nvlink]") {
  const NvlinkConfig c = h100();  // 8 GPUs (heads) x 16 NVLS channels: 128 concurrent chunks
  const std::uint64_t ops = 16 * 8;
  CHECK(nccl_nvls_chunk(c, 64 * ops * (128 << 10), 16) == (128u << 10));  // 1 GiB
  CHECK(nccl_nvls_chunk(c, 64 * ops * (128 << 10) - 1, 16) == (64u << 10));
  CHECK(nccl_nvls_chunk(c, 8 * ops * (64 << 10), 16) == (64u << 10));  // 64 MiB
  CHECK(nccl_nvls_chunk(c, 8 * ops * (64 << 10) - 1, 16) == (32u << 10));
  CHECK(nccl_nvls_chunk(c, 2 * ops * (32 << 10), 16) == (32u << 10));  // 8 MiB
  CHECK(nccl_nvls_chunk(c, 2 * ops * (32 << 10) - 1, 16) == (16u << 10));
  CHECK(nccl_nvls_chunk(c, 1, 16) == (16u << 10));
  CHECK(nccl_nvls_chunk(c, 8ull << 30, 16) == (128u << 10));
  // Fewer channels: the same chunk count per (channel, head) at a quarter of the size.
  CHECK(nccl_nvls_chunk(c, (1ull << 30) / 4, 4) == (128u << 10));
  // The choice carries it, and the schedule cuts the data into it: 16 MiB = 8 heads x 16
  // channels x 4 loops x 32 KiB, so every GPU sends 4 x 16 x 8 reads up, each 32 KiB / 0.85.
  const NcclChoice ch = nccl_choose(c, spec_of(CollectiveOp::kAllReduce, 16ull << 20));
  REQUIRE(ch.algorithm == NcclAlgorithm::kNvls);
  CHECK(ch.chunk == (32u << 10));
  IciSchedule s;
  const NvSwitchRoutes routes(8);
  append_nccl(s, routes, c, spec_of(CollectiveOp::kAllReduce, 16ull << 20), ch);
  std::size_t reads = 0;
  const auto wire = static_cast<std::uint64_t>(std::ceil((32 << 10) / c.nvls_efficiency));
  for (std::size_t i = 0; i < s.size(); ++i) {
    const IciSchedule::Message& m = s.message(static_cast<IciMessageId>(i));
    if (m.src == 0 && m.dst == routes.fabric()) {
      CHECK(m.bytes == wire);
      ++reads;
    }
  }
  CHECK(reads == 4 * 16 * 8 + 4 * 16);  // reads of every owner's shard, and its own stores
}

TEST_CASE("NCCL schedules move the bytes their algorithms need", "[unit][nvlink]") {
  const std::uint64_t S = 48'000'017;
  const int p = 8;
  for (NcclProtocol pr : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple}) {
    for (CollectiveOp op :
         {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
      NcclSpec s = spec_of(op, S);
      s.protocol = pr;
      s.algorithm = NcclAlgorithm::kRing;
      std::vector<std::uint64_t> up;
      const NcclResult r = run(a100(), s, &up);
      const int steps = op == CollectiveOp::kAllReduce ? 2 * (p - 1) : p - 1;
      // Each rank sends its steps' chunks of a part of ceil(S / p), inflated by the protocol's
      // flags (each message's bytes rounded up).
      const double part = std::ceil(static_cast<double>(S) / p);
      const double want = steps * part / nccl_protocol_info(pr).data_fraction;
      INFO(nccl_protocol_name(pr) << " " << collective_op_name(op));
      for (std::uint64_t b : up) {
        CHECK(static_cast<double>(b) >= want);
        CHECK(static_cast<double>(b) <= want + static_cast<double>(r.result.messages));
      }
    }
  }
  {  // NVLS: each GPU sends every shard up once and its own sum once; receives the same
    std::vector<std::uint64_t> up, down;
    const NvlinkConfig c = h100();
    NcclSpec s = spec_of(CollectiveOp::kAllReduce, S);
    s.algorithm = NcclAlgorithm::kNvls;
    run(c, s, &up, &down);
    const double want = std::ceil(static_cast<double>(S) / p) * (p + 1) / c.nvls_efficiency;
    for (std::size_t g = 0; g < up.size(); ++g) {
      CHECK(static_cast<double>(up[g]) == Approx(want).epsilon(1e-4));
      CHECK(static_cast<double>(down[g]) == Approx(want).epsilon(1e-4));
    }
  }
  {  // all-to-all: (p - 1) / p of S out of and into every GPU
    std::vector<std::uint64_t> up, down;
    run(a100(), spec_of(CollectiveOp::kAllToAll, S), &up, &down);
    for (std::size_t g = 0; g < up.size(); ++g) {
      CHECK(static_cast<double>(up[g]) == Approx(S * (p - 1.0) / p).epsilon(1e-6));
      CHECK(static_cast<double>(down[g]) == Approx(S * (p - 1.0) / p).epsilon(1e-6));
    }
  }
}

// On an idle node every rank sends all the time, so a large ring collective takes its
// alpha-beta time: launch + steps x step latency + steps x S / p / (B x data share). Tolerance
// (set before measuring): within 5% from 256 MiB up, and never below the bandwidth term.
TEST_CASE("NCCL ring collectives meet the alpha-beta formula on an idle node", "[unit][nvlink]") {
  const NvlinkConfig c = a100();
  for (CollectiveOp op :
       {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    for (std::uint64_t b : {256ull << 20, 1ull << 30}) {
      const NcclResult r = run(c, spec_of(op, b));
      const int steps = op == CollectiveOp::kAllReduce ? 14 : 7;
      const double bw_term = steps * static_cast<double>(b) / 8 / c.gpu_bandwidth();
      INFO(collective_op_name(op) << " " << b << " " << nccl_protocol_name(r.choice.protocol));
      CHECK(r.result.time_s >= bw_term);
      CHECK(r.result.time_s == Approx(r.result.formula_s).epsilon(0.05));
    }
  }
}

TEST_CASE("NVLS all-reduce beats the ring on H100 at 1 GiB", "[unit][nvlink]") {
  NcclSpec ring = spec_of(CollectiveOp::kAllReduce, 1ull << 30), nvls = ring;
  ring.algorithm = NcclAlgorithm::kRing;
  nvls.algorithm = NcclAlgorithm::kNvls;
  const NcclResult a = run(h100(), ring), b = run(h100(), nvls);
  CHECK(b.result.busbw > 1.2 * a.result.busbw);
  // ... and its bus bandwidth stays below the ideal 2(p-1)/(p+1) x B x nvls efficiency.
  const double ideal = 14.0 / 9.0 * h100().gpu_bandwidth() * h100().nvls_efficiency;
  CHECK(b.result.busbw < ideal);
}

// The packet-level reference plays the same collectives; they are contended (a rank's slices
// in flight share its trunks), so the bound is the contended one: 2% of the time.
TEST_CASE("NCCL collectives: packet model within 2% of the flow model", "[unit][nvlink]") {
  NvlinkConfig c = a100();
  c.gpus = 4;
  c.packet_size = Bytes(4096);
  c.credits = 64;
  c.nccl_channels = 2;
  NvlinkConfig cp = c;
  cp.model = NvlinkModel::kPacket;
  NcclSpec ar = spec_of(CollectiveOp::kAllReduce, 6 << 20);
  ar.protocol = NcclProtocol::kSimple;
  NcclSpec a2a = spec_of(CollectiveOp::kAllToAll, 6 << 20);
  for (const NcclSpec& s : {ar, a2a}) {
    const double f = run(c, s).result.time_s, p = run(cp, s).result.time_s;
    INFO(collective_op_name(s.op));
    CHECK(std::abs(f - p) <= 0.02 * p);
  }
  NvlinkConfig h = h100();
  h.gpus = 4;
  h.packet_size = Bytes(4096);
  h.credits = 64;
  NvlinkConfig hp = h;
  hp.model = NvlinkModel::kPacket;
  NcclSpec nv = spec_of(CollectiveOp::kAllReduce, 6 << 20);
  nv.algorithm = NcclAlgorithm::kNvls;
  const double f = run(h, nv).result.time_s, p = run(hp, nv).result.time_s;
  CHECK(std::abs(f - p) <= 0.02 * p);
}

TEST_CASE("NVLink stats: trunks' bytes and utilisation, collectives' NCCL choice and figures",
          "[unit][nvlink]") {
  const NvlinkConfig c = h100();
  const NvSwitchRoutes routes(static_cast<int>(c.gpus));
  const auto net = make_nvlink_network(c, routes);
  std::vector<NvlinkCollectiveRecord> recs;
  const NcclSpec s = spec_of(CollectiveOp::kAllReduce, 64 << 20);
  recs.push_back({s, run_nccl(*net, routes, c, s)});
  stats::Timebase tb;
  tb.period_ps = 1000;  // 1 GHz
  tb.total_cycles = static_cast<std::int64_t>(recs[0].result.result.time_s * 1e9);
  stats::StatGroup root("node", "node");
  stats::StatGroup& g = root.group("nvlink", "nvlink");
  declare_nvlink_stats(g, routes,
                       {[&]() -> const IciNetwork& { return *net; },
                        [&]() -> const std::vector<NvlinkCollectiveRecord>& { return recs; }},
                       tb);
  const auto num = [](const stats::StatGroup& grp, const char* n) {
    return std::get<std::int64_t>(grp.find(n)->value(stats::kRun));
  };
  CHECK(num(g, "gpus") == 8);
  CHECK(num(g, "collectives") == 1);
  const stats::StatGroup& up0 = *g.find_group("g0_up");
  CHECK(num(up0, "bytes") == static_cast<std::int64_t>(net->link_bytes()[routes.up(0)]));
  const double util = std::get<double>(up0.find("utilization")->value(stats::kRun));
  CHECK(util > 0.5);
  CHECK(util <= 1.0);
  const stats::StatGroup& col = *g.find_group("collective0");
  CHECK(std::get<std::string>(col.find("algorithm")->value(stats::kRun)) == "nvls");
  CHECK(std::get<std::string>(col.find("protocol")->value(stats::kRun)) == "Simple");
  CHECK(std::get<double>(col.find("busbw")->value(stats::kRun)) == recs[0].result.result.busbw);
}
