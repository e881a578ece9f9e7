// NCCL's collectives on an NVSwitch node as message schedules (nccl_collective.h).
// Ring (src/collectives/device/all_reduce.h, all_gather.h, reduce_scatter.h, runRing): per loop
// every channel takes a chunk of each rank's part (min(chunk, ceil(left / channels))); the
// chunk goes round the ring in 2(p-1) steps (all-reduce) or p-1, each step a send to the next
// rank; prims_simple.h cuts a Simple chunk into 2 slices (at least 1/32 of a 2-step slice), LL
// and LL128 send a chunk of one step. A connection holds NCCL_STEPS steps of FIFO: a sender may
// be that many steps (Simple: 4 slices) ahead of what its receiver has taken.
// NVLS (all_reduce.h runNvls, NVSwitch multimem): each rank owns 1/p of the data; per chunk
// the switch reads the owner's shard from every GPU and reduces it (multimem.ld_reduce: each
// GPU's up link carries it), returns the sum to the owner, which stores it once into the
// multicast object (multimem.st: one up) and the switch writes it to every GPU (p downs).
#include <algorithm>
#include <cmath>
#include <vector>

#include "models/nvlink/nccl_collective.h"

namespace systole::models {

namespace {

constexpr int kNcclSteps = 8;  // NCCL_STEPS

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// Calls f(channel, bytes) for every chunk of a rank's `part`, loop by loop: each loop every
/// channel of `nc` takes min(chunk, ceil(left / nc)) of what is left (NCCL's runRing).
template <class F>
void for_each_chunk(std::uint64_t part, int nc, std::uint64_t chunk, F f) {
  for (std::uint64_t off = 0; off < part; off += static_cast<std::uint64_t>(nc) * chunk) {
    const std::uint64_t left = part - off;
    const std::uint64_t share = std::min(chunk, ceil_div(left, static_cast<std::uint64_t>(nc)));
    for (int k = 0; k < nc; ++k) {
      const std::uint64_t at = static_cast<std::uint64_t>(k) * share;
      if (at < left) f(k, std::min(share, left - at));
    }
  }
}

std::uint64_t ps(double us) { return static_cast<std::uint64_t>(us * 1e6 + 0.5); }

/// Per (channel, rank): the ids of its last `window` sends (the FIFO's slots).
class FifoWindow {
 public:
  FifoWindow(int connections, int window)
      : window_(window),
        ids_(static_cast<std::size_t>(connections) * window),
        count_(connections) {}
  /// The send that must have arrived before connection `k`'s next one may go, if any.
  bool blocker(int k, IciMessageId& out) const {
    if (count_[k] < static_cast<std::uint64_t>(window_)) return false;
    out = ids_[slot(k)];
    return true;
  }
  void push(int k, IciMessageId id) {
    ids_[slot(k)] = id;
    ++count_[k];
  }

 private:
  std::size_t slot(int k) const {
    return static_cast<std::size_t>(k) * window_ + count_[k] % window_;
  }
  int window_;
  std::vector<IciMessageId> ids_;
  std::vector<std::uint64_t> count_;
};

void append_ring(IciSchedule& s, const NvlinkConfig& c, const NcclSpec& spec,
                 const NcclChoice& ch) {
  const int p = static_cast<int>(c.gpus);
  const NcclProtocolInfo& info = nccl_protocol_info(ch.protocol);
  const int nsteps = spec.op == CollectiveOp::kAllReduce ? 2 * (p - 1) : p - 1;
  const std::uint64_t chunk = info.step_bytes * info.chunk_steps;
  const std::uint64_t part = ceil_div(spec.bytes, static_cast<std::uint64_t>(p));
  const IciLinkTiming t = nvlink_timing(c);
  const std::uint64_t launch = ps(info.base_latency_us);
  const std::uint64_t step = ps(info.step_latency_us);
  const std::uint64_t hop = t.transfer_ps(0, 2);
  const std::uint64_t sync = step > hop ? step - hop : 0;  // the step latency the links don't
  const int nc = ch.channels;
  // Simple: the channel's CTA copies a slice, fences (__threadfence_system) and posts its flag
  // before it copies the next (prims_simple.h), so a connection has one slice in flight. LL and
  // LL128 carry their flags in the data, no fence: NCCL_STEPS slots in flight.
  const bool simple = ch.protocol == NcclProtocol::kSimple;
  FifoWindow fifo(nc * p, simple ? 1 : kNcclSteps / info.slice_steps);
  std::vector<IciMessageId> prev, cur, deps;
  for_each_chunk(part, nc, chunk, [&](int k, std::uint64_t cb) {
    std::uint64_t slice = cb;
    if (info.chunk_steps > info.slice_steps) {
      const std::uint64_t per = static_cast<std::uint64_t>(info.chunk_steps / info.slice_steps);
      slice = std::max(ceil_div(cb, per), info.step_bytes * info.slice_steps / 32);
    }
    const int nsl = static_cast<int>(ceil_div(cb, slice));
    prev.assign(static_cast<std::size_t>(p * nsl), 0);
    cur.assign(prev.size(), 0);
    for (int st = 0; st < nsteps; ++st) {
      for (int sl = 0; sl < nsl; ++sl) {
        const std::uint64_t b = std::min(slice, cb - static_cast<std::uint64_t>(sl) * slice);
        const auto wire =
            static_cast<std::uint64_t>(std::ceil(static_cast<double>(b) / info.data_fraction));
        for (int r = 0; r < p; ++r) {
          deps.clear();
          if (st > 0) deps.push_back(prev[static_cast<std::size_t>(((r + p - 1) % p) * nsl + sl)]);
          IciMessageId w = 0;
          if (fifo.blocker(k * p + r, w)) deps.push_back(w);
          const IciMessageId id =
              s.add(static_cast<ChipId>(r), static_cast<ChipId>((r + 1) % p), wire, deps, launch);
          if (!deps.empty()) s.set_delay(id, sync);
          fifo.push(k * p + r, id);
          cur[static_cast<std::size_t>(r * nsl + sl)] = id;
        }
      }
      std::swap(prev, cur);
    }
  });
}

void append_nvls(IciSchedule& s, const NvSwitchRoutes& routes, const NvlinkConfig& c,
                 const NcclSpec& spec, const NcclChoice& ch) {
  const int p = static_cast<int>(c.gpus);
  const ChipId fabric = routes.fabric();
  const std::uint64_t chunk = ch.chunk > 0 ? ch.chunk : nccl_nvls_chunk(c, spec.bytes, ch.channels);
  const std::uint64_t part = ceil_div(spec.bytes, static_cast<std::uint64_t>(p));
  const std::uint64_t launch = ps(nccl_nvls_latency_s() * 1e6);
  const int nc = ch.channels;
  FifoWindow done(nc * p,
                  static_cast<int>(c.nvls_window));  // each (channel, owner)'s last chunks' joins
  // Each (channel, owner)'s reads and stores go one chunk after another (its warps loop over
  // the chunks); the window lets the stores and multicasts of one chunk overlap the reads of
  // the next ones.
  std::vector<std::vector<IciMessageId>> last_ups(static_cast<std::size_t>(nc * p));
  std::vector<IciMessageId> last_store(static_cast<std::size_t>(nc * p), 0);
  std::vector<bool> stored(static_cast<std::size_t>(nc * p), false);
  std::vector<IciMessageId> ups, downs, deps;
  for_each_chunk(part, nc, chunk, [&](int k, std::uint64_t cb) {
    const auto wire =
        static_cast<std::uint64_t>(std::ceil(static_cast<double>(cb) / c.nvls_efficiency));
    for (int i = 0; i < p; ++i) {
      const auto owner = static_cast<ChipId>(i);
      const auto q = static_cast<std::size_t>(k * p + i);
      deps = last_ups[q];
      IciMessageId w = 0;
      if (done.blocker(k * p + i, w)) deps.push_back(w);
      ups.clear();
      for (int j = 0; j < p; ++j)
        ups.push_back(s.add(static_cast<ChipId>(j), fabric, wire, deps, launch));
      last_ups[q] = ups;
      const IciMessageId red = s.add(fabric, owner, wire, ups);
      const IciMessageId store = stored[q] ? s.add(owner, fabric, wire, {red, last_store[q]})
                                           : s.add(owner, fabric, wire, {red});
      last_store[q] = store;
      stored[q] = true;
      downs.clear();
      for (int j = 0; j < p; ++j)
        downs.push_back(s.add(fabric, static_cast<ChipId>(j), wire, {store}));
      done.push(k * p + i, s.add(owner, owner, 0, downs));  // the chunk is everywhere
    }
  });
}

void append_direct(IciSchedule& s, const NvlinkConfig& c, const NcclSpec& spec) {
  const int p = static_cast<int>(c.gpus);
  const std::uint64_t launch = ps(nccl_protocol_info(NcclProtocol::kSimple).base_latency_us);
  const std::uint64_t base = spec.bytes / static_cast<std::uint64_t>(p);
  const std::uint64_t extra = spec.bytes % static_cast<std::uint64_t>(p);
  for (int src = 0; src < p; ++src)
    for (int dst = 0; dst < p; ++dst) {
      if (src == dst) continue;
      const std::uint64_t b = base + (static_cast<std::uint64_t>(dst) < extra ? 1 : 0);
      s.add(static_cast<ChipId>(src), static_cast<ChipId>(dst), b, {}, launch);
    }
}

}  // namespace

CollectivePlan append_nccl(IciSchedule& s, const NvSwitchRoutes& routes, const NvlinkConfig& c,
                           const NcclSpec& spec, const NcclChoice& choice) {
  CollectivePlan plan;
  plan.first = static_cast<IciMessageId>(s.size());
  plan.group_size = static_cast<int>(c.gpus);
  switch (choice.algorithm) {
    case NcclAlgorithm::kRing:
      append_ring(s, c, spec, choice);
      break;
    case NcclAlgorithm::kNvls:
      append_nvls(s, routes, c, spec, choice);
      break;
    case NcclAlgorithm::kDirect:
      append_direct(s, c, spec);
      break;
  }
  plan.end = static_cast<IciMessageId>(s.size());
  return plan;
}

}  // namespace systole::models
