#pragma once
// Configuration of an NVLink/NVSwitch node: N GPUs, each with L NVLinks to the NVSwitch fabric
// (bandwidth per link and direction, the share of it that carries data), link and switch
// latency, packet size and credits, NVLS in-switch reduction (NVSwitch 3, H100), which network
// model times it (flow level by default, packet level as the reference) and the NCCL settings
// the collectives run with (channels, NVLS channels and chunk).

#include <cstdint>
#include <string>

#include "sim/config/schema.h"

namespace systole::models {

enum class NvlinkModel { kFlow, kPacket };

/// The `nvlink` section: the node's GPUs, links, switch, model choice and NCCL settings.
struct NvlinkConfig {
  NvlinkModel model = NvlinkModel::kFlow;
  std::int64_t gpus = 0;             ///< GPUs on the NVSwitch fabric
  std::int64_t links_per_gpu = 0;    ///< NVLinks from each GPU to the switches
  BytesPerSecond link_bandwidth{0};  ///< one NVLink, one direction (signalling rate)
  double link_efficiency = 0;        ///< share of it that moves payload
  Picoseconds link_latency{0};       ///< GPU port to switch port (or back), one way
  Picoseconds switch_latency{0};     ///< one switch traversal; also a GPU port's
  Bytes packet_size{0};              ///< payload bytes per NVLink packet
  std::int64_t credits = 0;          ///< packets a message may hold in a switch input
  bool nvls = false;                 ///< in-switch reduction and multicast (NVSwitch 3)
  double nvls_efficiency = 0;        ///< the switch's reduce/multicast rate / the link rate
  std::int64_t nccl_channels = 0;    ///< NCCL ring channels (CTAs) per collective
  std::int64_t nvls_channels = 0;    ///< NCCL NVLS channels
  Bytes nvls_chunk{0};               ///< NCCL's largest NVLS chunk per channel and head
  std::int64_t nvls_window = 0;      ///< NVLS chunks in flight per channel and rank

  static const config::SchemaOf<NvlinkConfig>& schema();

  /// A GPU's payload bandwidth to the fabric, one direction (B/s): L x link x efficiency.
  double gpu_bandwidth() const {
    return static_cast<double>(links_per_gpu) * link_bandwidth.value() * link_efficiency;
  }
};

/// The `system.nvlink` (or top-level `nvlink`) section of a node file (configs/presets/hgx_*.yaml;
/// `base:` files resolved).
NvlinkConfig load_nvlink_file(const std::string& path);

}  // namespace systole::models
