// Speed of the SystemC memory boundary (MemoryIf) in front of the bank-level HBM: one DMA-like
// requester (one thread offers transfers in order, at most 16 ahead of the one it finishes, as
// a DMA engine's dependencies limit its run-ahead; another finishes them in order) streams
// reads of `requests` 64-byte requests per transfer, 4096 in flight, through HbmModule on the
// TPU v4 HBM2 system. Small transfers show the boundary's cost per transfer (SystemC calls and
// events); large ones the bank model's cost per request (bench_hbm). Prints transfers and
// requests per wall-second and CPU-second.
// Usage: bench_memory_boundary [transfers] [requests per transfer] [mode] [latency, ns]
//   mode 0: direct; 1: through a MemoryLinkModule (FIFO of 16, no latency); 2: direct with an
//   acceptance queue of 1 (the memory refuses the requester's run-ahead and retries it).
// Without the run-ahead limit, the code before back-pressure let the issuing thread queue every
// transfer at time 0 and ran several hundred times slower (200,000 one-request transfers:
// 0.001 M/s).
// Modes 1 and 2 need the back-pressure boundary (issue 10); the file builds without it too, so
// the same direct measurement runs on the code before it.
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <vector>

#include "models/hbm/hbm_module.h"
#if __has_include("models/link/memory_link_module.h")
#include "models/link/memory_link_module.h"
#define SYSTOLE_HAS_LINK 1
#endif

using namespace systole;
using namespace systole::models;

extern "C" int sc_main(int, char*[]) { return 0; }  // libsystemc.so references it; unused

namespace {

struct Requester : sc_core::sc_module {
  sc_core::sc_port<MemoryIf> mem;
  std::uint64_t n, bytes;
  std::vector<std::uint64_t> handle;
  std::size_t issued = 0, retired = 0;
  sc_core::sc_event issued_ev, retired_ev;
  static constexpr std::size_t kAhead = 16;  // transfers begun and not yet finished

  Requester(const sc_core::sc_module_name& name, std::uint64_t transfers, std::uint64_t b)
      : sc_core::sc_module(name), n(transfers), bytes(b) {
    SC_HAS_PROCESS(Requester);
    SC_THREAD(issue);
    SC_THREAD(retire);
    handle.reserve(n);
  }
  void issue() {
    for (std::uint64_t i = 0; i < n; ++i) {
      while (issued - retired >= kAhead) sc_core::wait(retired_ev);
      MemoryTransfer t;
      t.desc = DmaDescriptor::linear(i * bytes, bytes);
      t.request_bytes = 64;
      t.max_outstanding = 4096;
      handle.push_back(mem->begin(t));
      ++issued;
      issued_ev.notify();
    }
  }
  void retire() {
    for (std::size_t i = 0; i < n; ++i) {
      while (issued <= i) sc_core::wait(issued_ev);
      mem->finish(handle[i]);
      ++retired;
      retired_ev.notify();
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200'000;
  const std::uint64_t requests = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const int mode = argc > 3 ? std::atoi(argv[3]) : 0;
  HbmConfig cfg = HbmConfig::from_preset(HbmPreset::kHbm2);
  cfg.latency = Picoseconds(argc > 4 ? std::strtoull(argv[4], nullptr, 10) * 1000 : 0);
  Requester req("dma", n, requests * 64);
  std::unique_ptr<HbmModule> hbm;
#ifdef SYSTOLE_HAS_LINK
  if (mode == 2) cfg.transfer_queue = 1;
  hbm = std::make_unique<HbmModule>("hbm", cfg);
  std::unique_ptr<MemoryLinkModule> link;
  if (mode == 1) {
    MemoryLinkConfig lc = MemoryLinkConfig::schema().load(config::Node::map(), "link");
    link = std::make_unique<MemoryLinkModule>("link", lc);
    link->memory.bind(*hbm);
    req.mem.bind(*link);
  } else {
    req.mem.bind(*hbm);
  }
#else
  if (mode != 0) {
    std::fprintf(stderr, "mode %d needs the back-pressure boundary\n", mode);
    return 2;
  }
  hbm = std::make_unique<HbmModule>("hbm", cfg);
  req.mem.bind(*hbm);
#endif
  const char* names[] = {"direct", "link", "depth 1"};
  std::printf(
      "MemoryIf -> bank-level HBM2 (4 stacks), %s: %llu transfers of %llu x 64 B, "
      "latency %.0f ns\n",
      names[mode], static_cast<unsigned long long>(n), static_cast<unsigned long long>(requests),
      static_cast<double>(cfg.latency.value()) / 1e3);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double total = static_cast<double>(n * requests);
  std::printf(
      "%8.3f M transfers/wall-s  %8.3f M transfers/CPU-s  %8.3f M requests/CPU-s  "
      "(%llu wake-ups, simulated %.1f us)\n",
      static_cast<double>(n) / wall / 1e6, static_cast<double>(n) / cpu / 1e6, total / cpu / 1e6,
      static_cast<unsigned long long>(hbm->wakeups()), sc_core::sc_time_stamp().to_seconds() * 1e6);
  return 0;
}
