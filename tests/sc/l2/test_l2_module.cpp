// The L2's SystemC shell (models/l2/l2_module.h) with a bandwidth memory behind it
// (models/hbm/bandwidth_memory_module.h): a stream far larger than the L2 runs at the memory's
// bandwidth, reads and writes; a footprint smaller than the L2 read twice runs the second time
// at the L2's bandwidth with no memory reads; a far requester sees the far latency; a full
// acceptance queue refuses and retries without losing a transfer. One elaboration per
// TEST_CASE (ctest runs each alone); parts compared side by side share nothing.
#include <catch2/catch.hpp>

#include <systemc>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "models/hbm/bandwidth_memory_module.h"
#include "models/l2/l2_module.h"
#include "tests/support/memory_requester.h"

using namespace systole;
using namespace systole::models;

namespace {

constexpr std::uint64_t kChunk = 64 * 1024;  // bytes per upstream transfer

using Requester = test::MemoryRequester;

/// `bytes` from `addr` in kChunk transfers from requester `id`.
std::vector<MemoryTransfer> stream(std::uint16_t id, std::uint64_t addr, std::uint64_t bytes,
                                   bool write = false) {
  std::vector<MemoryTransfer> v;
  for (std::uint64_t b = 0; b < bytes; b += kChunk) {
    MemoryTransfer t;
    t.desc = DmaDescriptor::linear(addr + b, std::min(kChunk, bytes - b));
    t.write = write;
    t.requester = id;
    v.push_back(t);
  }
  return v;
}

L2Config a100() { return L2Config::schema().load(config::Node::map(), "l2"); }

/// An L2 in front of a bandwidth memory, with requesters; keeps one elaboration's parts alive.
struct Rig {
  std::unique_ptr<BandwidthMemoryModule> mem;
  std::unique_ptr<L2Module> l2;
  std::vector<std::unique_ptr<Requester>> req;
  Rig(const std::string& n, const L2Config& cfg, double bytes_per_ps, double latency_ps,
      std::uint32_t depth = 1 << 16)
      : mem(std::make_unique<BandwidthMemoryModule>((n + "_mem").c_str(), bytes_per_ps * 1e12,
                                                    latency_ps, depth)),
        l2(std::make_unique<L2Module>((n + "_l2").c_str(), cfg)) {
    l2->memory.bind(*mem);
  }
  Requester& add(const std::string& n, std::vector<MemoryTransfer> t, double start = 0) {
    req.push_back(std::make_unique<Requester>(n.c_str(), std::move(t), start));
    req.back()->mem.bind(*l2);
    return *req.back();
  }
  double end_ps() const {
    double e = 0;
    for (const auto& r : req) e = std::max(e, r->last_ps());
    return e;
  }
};

}  // namespace

// A 1 MiB L2 (2 x 4 slices of 128 KiB: 8 x 64 B/clk = 722 GB/s) with fast ports, in front of a
// 200 GB/s memory (500 ns) that holds 16 transfers per requester. Four requesters stream
// 16 MiB each, 64x the L2: every line misses once, and the run takes the memory's time,
// 64 MiB / 200 GB/s = 335.5 us, within 3% (the first fetch's latency and the last's return).
// Writes likewise: whole lines allocate without fetches, all but the last 1 MiB (still dirty
// in the L2) is written back, and a write-back holds its access until the memory accepts it,
// so the writers run at the memory's bandwidth too (at most 16 write-backs ahead).
TEST_CASE("L2 module: a stream far larger than the L2 runs at the memory's bandwidth", "[sc][l2]") {
  L2Config cfg = a100();
  cfg.capacity = Bytes(1 << 20);
  cfg.slices_per_partition = 4;
  cfg.port_bandwidth = 1024;
  const double bw = 0.2;  // bytes per ps
  const std::uint64_t each = 16 << 20, total = 4 * each;
  Rig rd("rd", cfg, bw, 500e3, 16), wr("wr", cfg, bw, 500e3, 16);
  for (std::uint16_t i = 0; i < 4; ++i) {
    rd.add("r" + std::to_string(i), stream(i, i * each, each));
    wr.add("w" + std::to_string(i), stream(i, i * each, each, true));
  }
  sc_core::sc_start();
  const double ideal = static_cast<double>(total) / bw;
  INFO("read " << rd.end_ps() << " ps, write " << wr.end_ps() << " ps, ideal " << ideal);
  CHECK(rd.end_ps() >= ideal);
  CHECK(rd.end_ps() <= 1.03 * ideal);
  CHECK(rd.mem->counters().bytes_read == total);
  CHECK(rd.l2->timing().counters().fetch_bytes == total);
  CHECK(rd.l2->timing().counters().sector_hits == 0);
  const std::uint64_t spilled = total - cfg.capacity.value();
  CHECK(wr.mem->counters().bytes_read == 0);
  CHECK(wr.mem->counters().bytes_written == spilled);
  // The last 16 write-backs (one 64 KiB transfer each) may still be draining at the end.
  CHECK(wr.end_ps() >= static_cast<double>(spilled - 16 * kChunk) / bw);
  CHECK(wr.end_ps() <= 1.03 * ideal);
  // One downstream transfer per upstream one: each 64 KiB read misses whole, and each 64 KiB
  // write evicts the 64 KiB written one capacity before it (lines a capacity apart share a set).
  CHECK(rd.l2->timing().counters().fetch_transfers == total / kChunk);
  CHECK(wr.l2->timing().counters().writeback_transfers == spilled / kChunk);
  // A few SystemC waits per transfer (upstream and downstream), none per line (512 a transfer).
  const std::uint64_t lines = total / 128, transfers = 2 * total / kChunk;
  INFO("waits: read " << rd.l2->waits() << ", write " << wr.l2->waits());
  CHECK(rd.l2->waits() <= 4 * transfers);
  CHECK(wr.l2->waits() <= 4 * transfers);
  CHECK(rd.l2->timing().counters().line_accesses == lines);
}

// A100 L2 (40 MiB, 80 slices x 64 B/clk = 5120 B/clk at 1.41 GHz = 7.22 TB/s) with fast ports
// in front of a 1 TB/s memory. Eight requesters read 2 MiB each (16 MiB in all), wait until
// 100 us, and read it again: no memory reads the second time, which takes 16 MiB / 7.22 TB/s
// = 2.32 us (+ 211 cycles = 150 ns of latency), within 10%.
TEST_CASE("L2 module: a footprint smaller than the L2 read twice runs at the L2's bandwidth",
          "[sc][l2]") {
  L2Config cfg = a100();
  cfg.port_bandwidth = 5120;
  const std::uint64_t each = 2 << 20, total = 8 * each;
  Rig first("first", cfg, 1.0, 500e3);
  std::vector<Requester*> again;
  for (std::uint16_t i = 0; i < 8; ++i) {
    first.add("a" + std::to_string(i), stream(i, i * each, each));
    again.push_back(&first.add("b" + std::to_string(i), stream(i, i * each, each), 100e6));
  }
  sc_core::sc_start();
  for (std::size_t i = 0; i < 8; ++i) REQUIRE(first.req[2 * i]->last_ps() < 100e6);
  CHECK(first.mem->counters().bytes_read == total);  // the first pass only
  double end = 0;
  for (const Requester* r : again) end = std::max(end, r->last_ps());
  const double p = cfg.period_ps();
  const double ideal = static_cast<double>(total) / (5120.0 / p) + 211 * p;
  INFO("second pass " << end - 100e6 << " ps, ideal " << ideal);
  CHECK(end - 100e6 >= ideal);
  CHECK(end - 100e6 <= 1.10 * ideal);
  const L2Counters& k = first.l2->timing().counters();
  CHECK(k.sector_hits == total / 32);
  CHECK(k.fetch_bytes == total);
}

// One 128 B line, warmed by a read at 0 (a miss: data back at 128 ps of crossing + 500 ns,
// then 211 cycles), is read at 10 us by a requester of partition 0 (near: the line is homed in
// slice 0) and at 20 us by one of partition 1 (far): 4.05 + 211 and 4.05 + 369 cycles.
TEST_CASE("L2 module: a far-partition requester sees the far latency", "[sc][l2]") {
  const L2Config cfg = a100();
  Rig rig("lat", cfg, 1.0, 500e3);
  rig.l2->set_partition(1, 0);
  rig.l2->set_partition(2, 0);
  rig.l2->set_partition(3, 1);
  Requester& cold = rig.add("cold", stream(1, 0, 128));
  Requester& near = rig.add("near", stream(2, 0, 128), 10e6);
  Requester& far = rig.add("far", stream(3, 0, 128), 20e6);
  sc_core::sc_start();
  const double p = cfg.period_ps();
  CHECK(cold.last_ps() == Approx(std::ceil(128 + 500e3 + 211 * p)).margin(1));
  CHECK(near.last_ps() == Approx(std::ceil(10e6 + (4.05 + 211) * p)).margin(1));
  CHECK(far.last_ps() == Approx(std::ceil(20e6 + (4.05 + 369) * p)).margin(1));
  CHECK(rig.l2->timing().counters().far_accesses == 1);
  CHECK(rig.mem->counters().bytes_read == 128);
}

// Depth-1 queues at the L2 and at the memory; two requesters offer 48 transfers each, reads
// and writes over 1.5 MiB each (three times a 1 MiB L2 in all), twice: the L2 refuses each
// requester's second offer until its first has finished, the memory refuses the L2's second
// fetch while one is in flight, and still every transfer finishes once, in order, each
// accepted only after the one before it finished; the memory saw exactly the L2's fetches and
// write-backs.
TEST_CASE("L2 module: back-pressure refuses and retries without losing transfers",
          "[sc][l2][backpressure]") {
  L2Config cfg = a100();
  cfg.capacity = Bytes(1 << 20);
  cfg.slices_per_partition = 4;
  cfg.transfer_queue = 1;
  Rig rig("bp", cfg, 0.2, 500e3, 1);
  const std::uint64_t half = 24 * kChunk;
  std::vector<Requester*> req;
  for (std::uint16_t id = 0; id < 2; ++id) {
    std::vector<MemoryTransfer> t;
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < 24; ++i)
        t.push_back(
            stream(id, id * half + static_cast<std::uint64_t>(i) * kChunk, kChunk, i % 3 == 1)[0]);
    req.push_back(&rig.add("dma" + std::to_string(id), t));
  }
  sc_core::sc_start();
  for (const Requester* r : req) {
    REQUIRE(r->finished_ps.size() == 48);
    for (std::size_t i = 1; i < 48; ++i) CHECK(r->accepted_ps[i] >= r->finished_ps[i - 1]);
  }
  CHECK(rig.l2->refusals() > 0);
  CHECK(rig.mem->refusals() > 0);
  const L2Counters& k = rig.l2->timing().counters();
  CHECK(k.transfers == 96);
  CHECK(rig.mem->counters().bytes_read == k.fetch_bytes);
  CHECK(rig.mem->counters().bytes_written == k.writeback_bytes);
  CHECK(k.writeback_bytes > 0);
  CHECK(rig.l2->counters().bytes_read + rig.l2->counters().bytes_written == 96 * kChunk);
}
