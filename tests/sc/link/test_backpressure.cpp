// Back-pressure at the memory boundary (issue 10, deliverable 4): a requester that runs ahead
// like a DMA engine (one thread offers its transfers in order, blocking while refused; another
// finishes them in order) in front of each memory kind — bank-level HBM, bandwidth HBM, CMEM —
// directly and through a MemoryLinkModule. SystemC allows one elaboration per process, so each
// TEST_CASE builds all the pairs it compares side by side; they share nothing, so each runs as
// it would alone.
#include <catch2/catch.hpp>

#include <systemc>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/hbm/bandwidth_memory_module.h"
#include "models/hbm/hbm_module.h"
#include "models/link/memory_link_module.h"
#include "models/sram/sram_module.h"
#include "tests/support/memory_requester.h"

using namespace systole;
using namespace systole::models;

namespace {

constexpr std::uint64_t kBytes = 64 * 1024;  // per transfer: 128 requests of 512 B
constexpr int kTransfers = 16;
constexpr double kLatencyPs = 500'000;  // 500 ns

using Requester = test::MemoryRequester;

/// `n` transfers of kBytes, back to back in the memory, every `write_every`-th one a write
/// (0: all reads); each engine's requests in a window of 4096.
std::vector<MemoryTransfer> stream(std::uint16_t engine, int n = kTransfers, int write_every = 0) {
  std::vector<MemoryTransfer> v;
  for (int i = 0; i < n; ++i) {
    MemoryTransfer t;
    t.desc = DmaDescriptor::linear((std::uint64_t{engine} << 28) + i * kBytes, kBytes);
    t.write = write_every && i % write_every == write_every - 1;
    t.requester = engine;
    t.request_bytes = 512;
    t.max_outstanding = 4096;
    v.push_back(t);
  }
  return v;
}

enum class Kind { kBank, kBandwidth, kCmem };
const char* name(Kind k) {
  return k == Kind::kBank ? "bank HBM" : k == Kind::kBandwidth ? "bandwidth HBM" : "CMEM";
}

/// A memory of kind `k` whose acceptance queue holds `depth` transfers per requester: TPU v4's
/// HBM2 (bank level, 500 ns), 1 byte/ps with 500 ns (bandwidth model), the schema's CMEM.
std::unique_ptr<sc_core::sc_module> memory(Kind k, const std::string& name, std::int64_t depth) {
  if (k == Kind::kBank) {
    HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
    cfg.latency = Picoseconds(static_cast<std::uint64_t>(kLatencyPs));
    cfg.transfer_queue = depth;
    return std::make_unique<HbmModule>(name.c_str(), cfg);
  }
  if (k == Kind::kBandwidth)
    return std::make_unique<BandwidthMemoryModule>(name.c_str(), 1e12, kLatencyPs,
                                                   static_cast<std::uint32_t>(depth));
  SramConfig cfg = SramConfig::cmem_schema().load(config::Node::map(), "cmem");
  cfg.transfer_queue = depth;
  return std::make_unique<SramModule>(name.c_str(), cfg, cfg.bandwidth);
}

MemoryIf& face(sc_core::sc_module& m) { return dynamic_cast<MemoryIf&>(m); }

MemoryLinkConfig link_cfg(std::int64_t depth, double latency_ps = 0) {
  MemoryLinkConfig c = MemoryLinkConfig::schema().load(config::Node::map(), "link");
  c.depth = depth;
  c.latency = Picoseconds(static_cast<std::uint64_t>(latency_ps));
  return c;
}

/// Keeps the modules of one elaboration alive.
struct Netlist {
  std::vector<std::unique_ptr<sc_core::sc_module>> parts;
  template <class T>
  T& add(std::unique_ptr<T> p) {
    T& r = *p;
    parts.push_back(std::move(p));
    return r;
  }
  /// A requester bound to `target`.
  Requester& requester(const std::string& n, MemoryIf& target, std::vector<MemoryTransfer> t) {
    Requester& r = add(std::make_unique<Requester>(n.c_str(), std::move(t)));
    r.mem.bind(target);
    return r;
  }
  /// A link of `cfg` in front of `target`.
  MemoryLinkModule& link(const std::string& n, MemoryIf& target, const MemoryLinkConfig& cfg) {
    MemoryLinkModule& l = add(std::make_unique<MemoryLinkModule>(n.c_str(), cfg));
    l.memory.bind(target);
    return l;
  }
};

}  // namespace

// B = 1 byte/ps, S = 64 KiB = 65,536 ps of crossing, L = 500,000 ps; the window (4096 requests
// of 512 B) never binds: all 16 x 128 requests fit. A transfer accepted at a crosses the
// bandwidth after the ones before it and its data arrives L later.
//   depth >= 16: all accepted at 0; the last crosses at 16 S and arrives at 16 S + L = 1,548,576.
//   depth 1: transfer k is accepted when k - 1 has arrived: each takes S + L on its own,
//            16 (S + L) = 9,048,576; the requester is held 15 (S + L) = 8,483,040 in all.
TEST_CASE("Bandwidth HBM: a requester is held at depth 1 and its time moves with the depth",
          "[sc][backpressure]") {
  Netlist net;
  const std::vector<std::int64_t> depths = {1, 2, 4, 16};
  std::vector<Requester*> req;
  for (const auto d : depths) {
    auto& mem = *net.parts.emplace_back(memory(Kind::kBandwidth, "mem" + std::to_string(d), d));
    req.push_back(&net.requester("dma" + std::to_string(d), face(mem), stream(0)));
  }
  sc_core::sc_start();
  const double s = kBytes, l = kLatencyPs;
  CHECK(req[0]->elapsed_ps() == kTransfers * (s + l));
  CHECK(req[0]->held_ps == (kTransfers - 1) * (s + l));
  CHECK(req[3]->elapsed_ps() == kTransfers * s + l);
  CHECK(req[3]->held_ps == 0);
  for (std::size_t i = 1; i < depths.size(); ++i) {
    INFO("depth " << depths[i]);
    CHECK(req[i]->elapsed_ps() < req[i - 1]->elapsed_ps());
    CHECK(req[i]->held_ps < req[i - 1]->held_ps);
  }
}

TEST_CASE("Bank HBM and CMEM: a requester is held at depth 1 and its time moves with the depth",
          "[sc][backpressure]") {
  Netlist net;
  const std::vector<std::int64_t> depths = {1, 2, 16};
  std::vector<std::vector<Requester*>> req(2);
  for (const Kind k : {Kind::kBank, Kind::kCmem})
    for (const auto d : depths) {
      const std::string tag = std::to_string(static_cast<int>(k)) + "_" + std::to_string(d);
      auto& mem = *net.parts.emplace_back(memory(k, "mem" + tag, d));
      req[k == Kind::kBank ? 0 : 1].push_back(&net.requester("dma" + tag, face(mem), stream(0)));
    }
  sc_core::sc_start();
  for (std::size_t m = 0; m < 2; ++m) {
    INFO(name(m == 0 ? Kind::kBank : Kind::kCmem));
    CHECK(req[m][0]->held_ps > 0);
    CHECK(req[m][2]->held_ps == 0);  // 16 transfers fit the queue
    for (std::size_t i = 1; i < depths.size(); ++i) {
      INFO("depth " << depths[i]);
      CHECK(req[m][i]->elapsed_ps() < req[m][i - 1]->elapsed_ps());
    }
    // At depth 1 each transfer starts once the one before it has arrived: never earlier.
    for (std::size_t t = 1; t < kTransfers; ++t)
      CHECK(req[m][0]->accepted_ps[t] >= req[m][0]->finished_ps[t - 1]);
  }
}

TEST_CASE("Each memory kind: through a deep link the results equal the direct connection",
          "[sc][backpressure][link]") {
  Netlist net;
  std::vector<Requester*> direct, linked;
  for (const Kind k : {Kind::kBank, Kind::kBandwidth, Kind::kCmem}) {
    const std::string tag = std::to_string(static_cast<int>(k));
    for (const std::int64_t d : {std::int64_t{2}, std::int64_t{16}}) {
      const std::string t = tag + "_" + std::to_string(d);
      auto& a = *net.parts.emplace_back(memory(k, "direct_mem" + t, d));
      auto& b = *net.parts.emplace_back(memory(k, "linked_mem" + t, d));
      direct.push_back(&net.requester("direct" + t, face(a), stream(0, kTransfers, 3)));
      auto& link = net.link("link" + t, face(b), link_cfg(64));
      linked.push_back(&net.requester("linked" + t, link, stream(0, kTransfers, 3)));
    }
  }
  sc_core::sc_start();
  for (std::size_t i = 0; i < direct.size(); ++i) {
    INFO("memory " << i / 2 << ", depth " << (i % 2 ? 16 : 2));
    CHECK(linked[i]->finished_ps == direct[i]->finished_ps);
    CHECK(linked[i]->elapsed_ps() > 0);
    CHECK(linked[i]->held_ps == 0);  // the link's FIFO takes what the memory refuses
  }
}

// With the link's 100 ns the bandwidth memory sees every transfer 100 ns later: all times move
// by exactly that. Back-pressure propagates: with a link of depth 1 in front of a memory of
// depth 1 the requester has two places and is held, the memory sees the same offers as a
// requester of its own at depth 1 (its refusals now wait in the link), and times are equal.
TEST_CASE("Bandwidth HBM through a link: latency adds and back-pressure propagates",
          "[sc][backpressure][link]") {
  Netlist net;
  const double hop = 100'000;
  auto& m0 = *net.parts.emplace_back(memory(Kind::kBandwidth, "m0", 16));
  auto& m1 = *net.parts.emplace_back(memory(Kind::kBandwidth, "m1", 16));
  auto& m2 = *net.parts.emplace_back(memory(Kind::kBandwidth, "m2", 1));
  auto& m3 = *net.parts.emplace_back(memory(Kind::kBandwidth, "m3", 1));
  Requester& direct = net.requester("direct", face(m0), stream(0));
  auto& slow = net.link("slow", face(m1), link_cfg(16, hop));
  Requester& delayed = net.requester("delayed", slow, stream(0));
  Requester& direct1 = net.requester("direct1", face(m2), stream(0));
  auto& narrow = net.link("narrow", face(m3), link_cfg(1));
  Requester& held = net.requester("held", narrow, stream(0));
  sc_core::sc_start();
  for (int i = 0; i < kTransfers; ++i) CHECK(delayed.finished_ps[i] == direct.finished_ps[i] + hop);
  CHECK(held.finished_ps == direct1.finished_ps);
  CHECK(held.held_ps > 0);
  CHECK(held.held_ps < direct1.held_ps);  // the link's place shortens the wait
  CHECK(narrow.held_ps() > 0);            // the link itself was refused by the memory
  CHECK(narrow.refusals() > 0);
}

TEST_CASE("Each memory kind: bytes and completions are preserved under back-pressure",
          "[sc][backpressure][link]") {
  // Two requesters (reads and every other transfer a write) share each memory, directly and
  // through one link (N:1); depths 1 and 3 refuse often.
  Netlist net;
  struct Case {
    MemoryIf* mem;
    std::vector<Requester*> req;
  };
  std::vector<Case> cases;
  for (const Kind k : {Kind::kBank, Kind::kBandwidth, Kind::kCmem})
    for (const std::int64_t d : {std::int64_t{1}, std::int64_t{3}})
      for (const bool via_link : {false, true}) {
        const std::string t = std::to_string(static_cast<int>(k)) + "_" + std::to_string(d) +
                              (via_link ? "_link" : "");
        auto& mem = *net.parts.emplace_back(memory(k, "mem" + t, d));
        MemoryIf* target = &face(mem);
        if (via_link) target = &net.link("link" + t, face(mem), link_cfg(d));
        Case c{&face(mem), {}};
        for (std::uint16_t e = 0; e < 2; ++e)
          c.req.push_back(
              &net.requester("dma" + t + "_" + std::to_string(e), *target, stream(e, 8, 2)));
        cases.push_back(c);
      }
  sc_core::sc_start();
  double held = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    const MemoryCounters c = cases[i].mem->counters();
    CHECK(c.bytes_read == 2 * 4 * kBytes);  // 2 requesters x 4 reads
    CHECK(c.bytes_written == 2 * 4 * kBytes);
    for (const Requester* r : cases[i].req) {
      CHECK(r->finished_ps.size() == 8);
      held += r->held_ps;
    }
  }
  CHECK(held > 0);  // the depths did refuse
}
