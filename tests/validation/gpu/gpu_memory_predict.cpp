// Runs the HBM and L2 timing models the way tests/validation/gpu's measurements ran the GPUs (see
// gpu_memory_predict.h and README.md).
#include "tests/validation/gpu/gpu_memory_predict.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/hbm/hbm_timing.h"
#include "models/l2/l2_timing.h"

namespace systole::test::gpu {

using models::DmaDescriptor;
using models::GpuDeviceConfig;
using models::HbmTiming;
using models::L2Timing;

namespace {

/// ASSUMPTION (plausible 512 B - 16 KiB): the contiguous piece of an array one CTA of the STREAM
/// kernel handles before the grid moves on (PyTorch's elementwise kernels: 128 threads x 4
/// elements x 4 B = 2 KiB per CTA); consecutive pieces go to consecutive SMs.
constexpr std::uint64_t kStreamChunk = 2048;
/// The readbw kernel of measure/membench.cu: 4 CTAs of 512 threads per SM, one 16-byte .cg load
/// per thread per step: a warp's load is 512 contiguous bytes, 16 warps a CTA, 64 warps an SM
/// (each with one load in flight).
constexpr std::uint64_t kWarpLoad = 512;
constexpr std::uint64_t kWarpsPerCta = 16;
constexpr std::uint64_t kCtasPerSm = 4;
constexpr std::size_t kLoadsInFlight = kWarpsPerCta * kCtasPerSm;

/// Lines each SM may have in flight at the memory: the L2's miss window (MSHRs x slices, the
/// L2 model's fetch stream) shared evenly by the SMs.
std::uint32_t sm_memory_window(const GpuDeviceConfig& d) {
  return static_cast<std::uint32_t>(d.l2.mshrs_per_slice * d.l2.slices() / d.sms);
}

models::Cycle hbm_latency_cycles(const GpuDeviceConfig& d, const HbmTiming& h) {
  return static_cast<models::Cycle>(
      std::llround(static_cast<double>(d.hbm.latency.value()) / h.tck_ps()));
}

/// Writes [0, bytes) into the L2 from `port` (whole sectors: nothing is fetched); returns when
/// the last write is done.
double warm_l2(L2Timing& l2, std::uint32_t port, std::uint64_t bytes) {
  constexpr std::uint64_t kPiece = 64 * 1024;
  double done = 0;
  for (std::uint64_t a = 0; a < bytes; a += kPiece) {
    const auto acc =
        l2.access(port, DmaDescriptor::linear(a, std::min(kPiece, bytes - a)), true, 0);
    if (!acc.settled || !l2.writebacks().empty())
      throw std::logic_error("warming the L2 fetched or evicted: footprint above capacity");
    done = std::max(done, acc.done_ps);
  }
  return done;
}

/// The readbw kernel's loads of one SM: pass, grid step, CTA, warp -> address.
class WarpLoads {
 public:
  WarpLoads(std::uint64_t sm, std::uint64_t sms, std::uint64_t footprint, int passes)
      : sm_(sm), sms_(sms), footprint_(footprint), passes_(passes) {
    const std::uint64_t grid = kCtasPerSm * sms * kWarpsPerCta * kWarpLoad;  // bytes per step
    steps_ = (footprint + grid - 1) / grid;
  }
  /// The next warp load's address; false when the SM is done.
  bool next(std::uint64_t& addr) {
    while (pass_ < passes_) {
      if (step_ == steps_) {
        step_ = 0;
        ++pass_;
        continue;
      }
      const std::uint64_t cta = step_ * kCtasPerSm * sms_ + sm_ + cta_ * sms_;
      addr = (cta * kWarpsPerCta + warp_) * kWarpLoad;
      advance();
      if (addr < footprint_) return true;
    }
    return false;
  }

 private:
  void advance() {
    if (++warp_ < kWarpsPerCta) return;
    warp_ = 0;
    if (++cta_ < kCtasPerSm) return;
    cta_ = 0;
    ++step_;
  }
  std::uint64_t sm_, sms_, footprint_;
  int passes_;
  int pass_ = 0;
  std::uint64_t steps_ = 0, step_ = 0, cta_ = 0, warp_ = 0;
};

using MinHeap = std::priority_queue<double, std::vector<double>, std::greater<>>;

/// Sends the L2's fetches for access `id` (accepted at `t_ps`, a miss) to the HBM model through
/// `port` and returns when the L2 settles the access.
double serve_miss(L2Timing& l2, HbmTiming& h, std::uint32_t port, std::uint64_t id, double t_ps) {
  if (!l2.writebacks().empty()) throw std::logic_error("a read-only chase wrote back");
  const std::vector<DmaDescriptor> fetches = l2.fetches();
  h.advance_to(std::max(h.now(), static_cast<models::Cycle>(std::ceil(t_ps / h.tck_ps()))));
  for (const auto& f : fetches) h.submit(port, f, false);
  h.run_until_idle();
  auto arrived = h.take_completed();
  std::sort(arrived.begin(), arrived.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  double at = 0;  // fetches arrive at the L2 in issue order
  for (const auto& c : arrived) {
    at = std::max(at, static_cast<double>(c.at) * h.tck_ps());
    for (const auto& s : l2.fetch_arrived(at))
      if (s.id == id) return s.done_ps;
  }
  throw std::logic_error("a missed load was never settled");
}

}  // namespace

double predict_stream(const GpuDeviceConfig& d, StreamKernel k, std::uint64_t array_bytes) {
  HbmTiming h(d.hbm);
  const auto sms = static_cast<std::uint64_t>(d.sms);
  const std::uint64_t rows = std::max<std::uint64_t>(1, array_bytes / (sms * kStreamChunk));
  const std::uint64_t array = rows * sms * kStreamChunk;
  const std::uint64_t slot = (array + (2u << 20) - 1) / (2u << 20) * (2u << 20);  // 2 MiB aligned
  const models::Cycle latency = hbm_latency_cycles(d, h);
  const std::uint32_t window = sm_memory_window(d);
  int array_index = 0;
  const auto streams = [&](int count, bool write) {
    for (int a = 0; a < count; ++a, ++array_index)
      for (std::uint64_t s = 0; s < sms; ++s) {
        const auto port = h.add_port(std::max<std::uint32_t>(1, window / count), 128, latency);
        h.submit(port,
                 DmaDescriptor::strided(array_index * slot + s * kStreamChunk, rows, kStreamChunk,
                                        sms * kStreamChunk),
                 write);
      }
  };
  streams(k.reads, false);
  streams(k.writes, true);
  const double seconds = static_cast<double>(h.run_until_idle()) * h.tck_ps() * 1e-12;
  return static_cast<double>(array) * (k.reads + k.writes) / seconds;
}

namespace {

/// `sms` ports (partitions 0, 1, 0, ...) each issuing 512-byte warp loads at the addresses
/// `next(sm, addr)` gives (false when the SM is done), at most `in_flight` outstanding: a new one
/// issues as the oldest returns. The footprint is written into the L2 first. Returns the time
/// from the first issue to the last load's data, in picoseconds.
template <typename Next>
double stream_loads(const GpuDeviceConfig& d, std::uint64_t sms, std::uint64_t footprint,
                    std::size_t in_flight, Next next) {
  L2Timing l2(d.l2);
  std::vector<std::uint32_t> ports;
  for (std::uint64_t s = 0; s < sms; ++s)
    ports.push_back(l2.add_port(static_cast<std::uint32_t>(s % d.l2.partitions)));
  const double t0 = warm_l2(l2, ports[0], footprint);
  std::vector<MinHeap> pending(sms);
  using Ready = std::pair<double, std::uint64_t>;  // time the SM may issue, SM
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (std::uint64_t s = 0; s < sms; ++s) ready.push({t0, s});
  double last = t0;
  std::uint64_t addr = 0;
  while (!ready.empty()) {
    const auto [t, s] = ready.top();
    ready.pop();
    if (!next(s, addr)) continue;
    const auto acc = l2.access(ports[s], DmaDescriptor::linear(addr, kWarpLoad), false, t);
    if (!acc.settled) throw std::logic_error("an L2-resident read missed");
    last = std::max(last, acc.done_ps);
    pending[s].push(acc.done_ps);
    double at = t;
    if (pending[s].size() >= in_flight) {
      at = pending[s].top();
      pending[s].pop();
    }
    ready.push({at, s});
  }
  return last - t0;
}

}  // namespace

double predict_l2_read(const GpuDeviceConfig& d, std::uint64_t footprint, int passes) {
  const auto sms = static_cast<std::uint64_t>(d.sms);
  std::vector<WarpLoads> loads;
  for (std::uint64_t s = 0; s < sms; ++s) loads.emplace_back(s, sms, footprint, passes);
  const double ps =
      stream_loads(d, sms, footprint, kLoadsInFlight,
                   [&](std::uint64_t s, std::uint64_t& a) { return loads[s].next(a); });
  return static_cast<double>(footprint) * passes / (ps * 1e-12);
}

double predict_l2_ceiling(const GpuDeviceConfig& d, int active, std::uint64_t footprint,
                          std::uint64_t bytes_per_sm, int in_flight) {
  const auto n = static_cast<std::uint64_t>(active);
  // l2bw's chunks: one iteration of a block's loop, 1024 threads x 8 float4 loads; SM s reads
  // chunks s, s + n, s + 2n, ... (mod the footprint's chunks), each as 256 warp loads.
  constexpr std::uint64_t kChunk = 1024 * 8 * 16;
  constexpr std::uint64_t kPerChunk = kChunk / kWarpLoad;
  const std::uint64_t chunks = footprint / kChunk;
  const std::uint64_t loads = bytes_per_sm / kWarpLoad;
  std::vector<std::uint64_t> issued(n, 0);
  const double ps = stream_loads(
      d, n, footprint, static_cast<std::size_t>(in_flight), [&](std::uint64_t s, std::uint64_t& a) {
        if (issued[s] == loads) return false;
        const std::uint64_t i = issued[s]++;
        a = (s + (i / kPerChunk) * n) % chunks * kChunk + (i % kPerChunk) * kWarpLoad;
        return true;
      });
  return static_cast<double>(bytes_per_sm * n) / (ps * 1e-12);
}

ChaseLatency predict_chase(const GpuDeviceConfig& d, std::uint64_t footprint, int hops, bool warm) {
  L2Timing l2(d.l2);
  HbmTiming h(d.hbm);
  const std::uint32_t port = l2.add_port(0);
  const std::uint32_t hbm_port =
      h.add_port(static_cast<std::uint32_t>(d.l2.mshrs_per_slice * d.l2.slices()), 128,
                 hbm_latency_cycles(d, h));
  double t = warm ? warm_l2(l2, port, footprint) : 0;
  const std::uint64_t line = d.l2.line.value();
  std::mt19937_64 rng(42);
  ChaseLatency out;
  double near_sum = 0, far_sum = 0;
  int near = 0, hits = 0;
  for (int i = 0; i < hops; ++i) {
    const std::uint64_t l = rng() % (footprint / line);
    const auto acc = l2.access(port, DmaDescriptor::linear(l * line, 4), false, t);
    double done = acc.done_ps;
    if (acc.settled)
      ++hits;
    else
      done = serve_miss(l2, h, hbm_port, acc.id, t);
    const double latency = done - t;
    const bool is_near = l2.partition_of_slice(l2.address_map().locate(l).slice) == 0;
    (is_near ? near_sum : far_sum) += latency;
    near += is_near ? 1 : 0;
    out.all_ps += latency;
    t = done;
  }
  out.all_ps /= hops;
  out.near_ps = near > 0 ? near_sum / near : 0;
  out.far_ps = near < hops ? far_sum / (hops - near) : 0;
  out.near_share = static_cast<double>(near) / hops;
  out.hit_rate = static_cast<double>(hits) / hops;
  return out;
}

}  // namespace systole::test::gpu
