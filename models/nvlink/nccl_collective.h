#pragma once
// NCCL's collectives on an NVSwitch node, as NCCL runs them, played as message schedules on
// the node's network model (flow or packet level): all-reduce (ring, or NVLS in-switch
// reduction on NVSwitch 3), reduce-scatter and all-gather (ring) and all-to-all (every pair at
// once). The mechanism follows NCCL's source (NVIDIA/nccl; models/nvlink/README.md cites each
// file): the protocol (LL, LL128, Simple) and algorithm come from NCCL's cost model
// (src/graph/tuning.cc); the channels from its thread thresholds (src/enqueue.cc); each channel
// cuts the data into loops of chunks and each chunk into slices (src/collectives/device/
// all_reduce.h, prims_simple.h), sent rank to rank through a FIFO of NCCL_STEPS slots; a step
// may start once its data has arrived, after NCCL's per-step latency. Sizes follow nccl-tests
// (NVIDIA/nccl-tests doc/PERFORMANCE.md): S is the whole array per GPU. Assumptions:
// reductions are free (the SMs add at link rate); the protocol's flags cost bandwidth in
// proportion (LL: half, LL128: 8 of 128 bytes); every channel gets an equal share of a GPU's
// links (the fabric's max-min fair rates).

#include <cstdint>
#include <optional>
#include <string>

#include "models/ici/ici_collective.h"
#include "models/nvlink/nvlink_config.h"
#include "models/nvlink/nvlink_network.h"

namespace systole::models {

enum class NcclProtocol { kLL, kLL128, kSimple };
enum class NcclAlgorithm { kRing, kNvls, kDirect };

const char* nccl_protocol_name(NcclProtocol p);
const char* nccl_algorithm_name(NcclAlgorithm a);

/// One NCCL protocol's constants, from NCCL's source.
struct NcclProtocolInfo {
  double data_fraction;      ///< payload share of the bytes it moves
  std::uint64_t step_bytes;  ///< payload of one FIFO step (its buffer / NCCL_STEPS)
  int chunk_steps;           ///< steps per chunk (ring)
  int slice_steps;           ///< steps per slice
  int max_threads;           ///< threads per channel
  int thread_threshold;      ///< bytes per thread before another channel opens
  double base_latency_us;    ///< tuning.cc baseLat, Ring
  double step_latency_us;    ///< tuning.cc hwLat, NVLink, Ring: one step's latency
};
const NcclProtocolInfo& nccl_protocol_info(NcclProtocol p);

/// A collective for NCCL on the node; algorithm and protocol chosen as NCCL would unless set.
struct NcclSpec {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::uint64_t bytes = 0;  ///< S, as nccl-tests defines it
  std::optional<NcclAlgorithm> algorithm;
  std::optional<NcclProtocol> protocol;
};

/// What NCCL runs: algorithm, protocol, channels, and its cost model's time.
struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  int channels = 1;
  double model_s = 0;       ///< NCCL's own estimate (tuning.cc: latency + S / bandwidth)
  std::uint64_t chunk = 0;  ///< NVLS: bytes per channel and head each loop (enqueue.cc)
};

/// NCCL's choice for `spec` on the node `c` (src/graph/tuning.cc, src/enqueue.cc).
NcclChoice nccl_choose(const NvlinkConfig& c, const NcclSpec& spec);

/// Appends `spec`'s messages, as NCCL runs `choice`, to `s` (GPUs 0..N-1 in ring order).
CollectivePlan append_nccl(IciSchedule& s, const NvSwitchRoutes& routes, const NvlinkConfig& c,
                           const NcclSpec& spec, const NcclChoice& choice);

/// The alpha-beta time of `choice` on an idle node, in seconds (README: the formulas).
double nccl_alpha_beta_seconds(const NvlinkConfig& c, const NcclSpec& spec,
                               const NcclChoice& choice);

/// NCCL's NVLS chunk for an all-reduce of `bytes` over `channels` channels: `nvls_chunk` (its
/// largest), halved down to 16 KiB for sizes that would give each channel and head few chunks.
std::uint64_t nccl_nvls_chunk(const NvlinkConfig& c, std::uint64_t bytes, int channels);

/// NCCL's NVLS latency (launch to first data), in seconds.
double nccl_nvls_latency_s();

/// A collective's figures on the node.
struct NcclResult {
  NcclChoice choice;
  CollectiveResult result;  ///< time, algbw, busbw (nccl-tests), alpha-beta time, messages
};

/// Runs `spec` alone on `net` (idle, over `routes`) as NCCL would, and measures it.
NcclResult run_nccl(IciNetwork& net, const NvSwitchRoutes& routes, const NvlinkConfig& c,
                    const NcclSpec& spec);

}  // namespace systole::models
