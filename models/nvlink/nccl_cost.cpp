// NCCL's protocol constants, its algorithm/protocol choice and channel count, the alpha-beta
// time beside each collective, and the runner. Sources: NVIDIA/nccl, commit 01afd20 unless
// stated — src/include/devcomm.h (NCCL_STEPS 8, buffer sizes, LL and LL128 line layouts),
// src/include/collectives.h (ALLREDUCE_CHUNKSTEPS NCCL_STEPS/2, ALLREDUCE_SLICESTEPS
// NCCL_STEPS/4; all-gather and reduce-scatter the same), src/graph/tuning.cc (baseLat, hwLat,
// the bandwidth refinements: LL a quarter of the bus bandwidth for all-reduce and a third for
// the others, LL128 0.92 of it and at most ll128MaxBwPerCh per channel), src/enqueue.cc
// (getAlgoInfo: the fastest (algorithm, protocol) by latency + bytes / bandwidth; channels cut
// while bytes < channels x threads x threshold).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/nvlink/nccl_collective.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {

constexpr int kNcclSteps = 8;  // NCCL_STEPS
// ll128MaxBwPerCh (GB/s per channel) for all-gather, reduce-scatter, all-reduce (tuning.cc).
constexpr double kLl128MaxBwPerCh[3] = {18.3, 15.2, 16.7};
// ASSUMPTION: NCCL's NVLS latency, 25 us (hwLat NVLink NVLS in NCCL 2.18's tuning.cc, read in
// public notes on that code; baseLat NVLS 0).
constexpr double kNvlsLatencyUs = 25.0;

int ring_steps(CollectiveOp op, int p) {
  return op == CollectiveOp::kAllReduce ? 2 * (p - 1) : p - 1;
}

/// NCCL's estimate of (algorithm, protocol) in microseconds; infinity where it cannot run.
double tuning_time_us(const NvlinkConfig& c, const NcclSpec& spec, NcclAlgorithm a, NcclProtocol pr,
                      int channels) {
  const int p = static_cast<int>(c.gpus);
  const double bytes = static_cast<double>(spec.bytes);
  const double bus = c.gpu_bandwidth() * 1e-9;  // GB/s: the ring's bus bandwidth
  if (a == NcclAlgorithm::kNvls) {
    const double bw = bus * c.nvls_efficiency * p / (p + 1.0);
    return kNvlsLatencyUs + bytes / (1000 * bw);
  }
  const NcclProtocolInfo& info = nccl_protocol_info(pr);
  const int nsteps = ring_steps(spec.op, p);
  double bw = bus;
  if (pr == NcclProtocol::kLL) bw *= spec.op == CollectiveOp::kAllReduce ? 0.25 : 1.0 / 3.0;
  if (pr == NcclProtocol::kLL128) {
    const int k = spec.op == CollectiveOp::kAllGather       ? 0
                  : spec.op == CollectiveOp::kReduceScatter ? 1
                                                            : 2;
    bw = std::min(bw * 0.92, kLl128MaxBwPerCh[k] * channels);
  }
  bw *= static_cast<double>(p) / nsteps;  // bus to algorithm bandwidth
  return info.base_latency_us + nsteps * info.step_latency_us + bytes / (1000 * bw);
}

/// Channels NCCL opens: fewer while the bytes would leave a channel's threads idle.
int ring_channels(const NvlinkConfig& c, const NcclSpec& spec, NcclProtocol pr) {
  const NcclProtocolInfo& info = nccl_protocol_info(pr);
  std::int64_t threshold = info.thread_threshold;
  if (pr == NcclProtocol::kLL) threshold *= c.gpus;  // ring LL: x nRanks
  std::int64_t nc = c.nccl_channels;
  while (nc > 1 && static_cast<std::int64_t>(spec.bytes) < nc * info.max_threads * threshold) --nc;
  return static_cast<int>(nc);
}

}  // namespace

const char* nccl_protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL:
      return "LL";
    case NcclProtocol::kLL128:
      return "LL128";
    case NcclProtocol::kSimple:
      return "Simple";
  }
  return "?";
}

const char* nccl_algorithm_name(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::kRing:
      return "ring";
    case NcclAlgorithm::kNvls:
      return "nvls";
    case NcclAlgorithm::kDirect:
      return "direct";
  }
  return "?";
}

const NcclProtocolInfo& nccl_protocol_info(NcclProtocol p) {
  // LL: 16 B lines of 8 B data + 8 B flags; a buffer of 8 lines x 512 threads x 8 steps.
  static const NcclProtocolInfo ll{0.5, 8 * 512 * 8, 1, 1, 512, 8, 6.6, 0.47};
  // LL128: 128 B lines of 120 B data; a buffer of 120 x 8 B x 640 threads x 8 steps.
  static const NcclProtocolInfo ll128{120.0 / 128.0, 120 * 8 * 640, 1, 1, 640, 8, 14.0, 1.9};
  // Simple: a 4 MiB buffer (DEFAULT_BUFFSIZE); chunks of 4 steps cut into slices of 2.
  static const NcclProtocolInfo simple{1.0, (4u << 20) / kNcclSteps, 4, 2, 512, 64, 8.4, 3.4};
  switch (p) {
    case NcclProtocol::kLL:
      return ll;
    case NcclProtocol::kLL128:
      return ll128;
    case NcclProtocol::kSimple:
      break;
  }
  return simple;
}

NcclChoice nccl_choose(const NvlinkConfig& c, const NcclSpec& spec) {
  NcclChoice best;
  if (spec.op == CollectiveOp::kAllToAll) {  // point-to-point sends: Simple, every channel
    best.algorithm = NcclAlgorithm::kDirect;
    best.protocol = NcclProtocol::kSimple;
    best.channels = static_cast<int>(c.nccl_channels);
    return best;
  }
  double best_t = std::numeric_limits<double>::infinity();
  for (NcclAlgorithm a : {NcclAlgorithm::kRing, NcclAlgorithm::kNvls}) {
    if (spec.algorithm && *spec.algorithm != a) continue;
    if (a == NcclAlgorithm::kNvls && (!c.nvls || spec.op != CollectiveOp::kAllReduce)) continue;
    for (NcclProtocol pr : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple}) {
      if (spec.protocol && *spec.protocol != pr) continue;
      if (a == NcclAlgorithm::kNvls && pr != NcclProtocol::kSimple) continue;
      const int nc = a == NcclAlgorithm::kNvls ? static_cast<int>(c.nvls_channels)
                                               : ring_channels(c, spec, pr);
      const double t = tuning_time_us(c, spec, a, pr, nc);
      if (t < best_t) {
        best_t = t;
        best = NcclChoice{a, pr, nc, t * 1e-6, 0};
        if (a == NcclAlgorithm::kNvls) best.chunk = nccl_nvls_chunk(c, spec.bytes, nc);
      }
    }
  }
  if (!std::isfinite(best_t))
    throw ConfigError({}, "nvlink",
                      fmt::format("NCCL has no algorithm for {} with the protocol and algorithm "
                                  "asked (NVLS needs nvls: true and an all-reduce)",
                                  collective_op_name(spec.op)));
  return best;
}

double nccl_alpha_beta_seconds(const NvlinkConfig& c, const NcclSpec& spec,
                               const NcclChoice& choice) {
  const int p = static_cast<int>(c.gpus);
  const IciLinkTiming t = nvlink_timing(c);
  const double hop = static_cast<double>(t.transfer_ps(0, 2)) * 1e-12;  // GPU to GPU, empty
  const double bytes = static_cast<double>(spec.bytes);
  const double b = c.gpu_bandwidth();
  const NcclProtocolInfo& info = nccl_protocol_info(choice.protocol);
  const double launch = info.base_latency_us * 1e-6;
  switch (choice.algorithm) {
    case NcclAlgorithm::kRing: {
      const int n = ring_steps(spec.op, p);
      const double alpha = std::max(hop, info.step_latency_us * 1e-6);
      return launch + n * alpha + n * bytes / p / (b * info.data_fraction);
    }
    case NcclAlgorithm::kNvls:  // up, reduce down, store up, multicast down
      return kNvlsLatencyUs * 1e-6 + 2 * hop + bytes * (1.0 + 1.0 / p) / (b * c.nvls_efficiency);
    case NcclAlgorithm::kDirect:
      return launch + hop + bytes * (p - 1) / p / b;
  }
  return 0;
}

// NCCL 2.18.5 (the version measured), src/enqueue.cc computeColl, NCCL_ALGO_NVLS: the chunk
// starts at 128 KiB (maxChunkSize; `nvls_chunk` here) and drops to 64, 32 and 16 KiB while the
// all-reduce's bytes are below 64, 8 and 2 x (channels x nHeads x chunk), so that every
// (channel, head) still has several chunks to pipeline. nHeads is the NVLS graph's channel
// count, one per GPU on a node (src/graph/connect.cc connectNvls: nHeads = nvlsGraph->nChannels;
// src/graph/search.cc: "NVLS channels correspond to GPUs pulling from NVLS. So the more the
// better", at most the GPU count, and forced to it when the node has no NIC).
std::uint64_t nccl_nvls_chunk(const NvlinkConfig& c, std::uint64_t bytes, int channels) {
  std::uint64_t chunk = c.nvls_chunk.value();
  const auto ops = static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(c.gpus);
  const std::uint64_t steps[3][2] = {{64, 64 << 10}, {8, 32 << 10}, {2, 16 << 10}};
  for (const auto& st : steps)
    if (bytes < st[0] * ops * chunk && chunk > st[1]) chunk = st[1];
  return chunk;
}

double nccl_nvls_latency_s() { return kNvlsLatencyUs * 1e-6; }

NcclResult run_nccl(IciNetwork& net, const NvSwitchRoutes& routes, const NvlinkConfig& c,
                    const NcclSpec& spec) {
  NcclResult out;
  out.choice = nccl_choose(c, spec);
  IciSchedule s;
  const CollectivePlan plan = append_nccl(s, routes, c, spec, out.choice);
  const IciScheduleResult r = run_schedule(net, s);
  CollectiveSpec cs;
  cs.op = spec.op;
  cs.bytes = spec.bytes;
  out.result = collective_result(cs, plan, static_cast<double>(r.end_ps) * 1e-12,
                                 nccl_alpha_beta_seconds(c, spec, out.choice));
  return out;
}

}  // namespace systole::models
