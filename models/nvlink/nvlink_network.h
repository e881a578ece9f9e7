#pragma once
// The NVSwitch fabric of a node as a network the ICI models time: each GPU's L NVLinks to the
// switches form one trunk per direction (an up link GPU -> fabric and a down link fabric ->
// GPU, L x link bandwidth x efficiency each); a GPU-to-GPU transfer crosses its source's up
// link and its destination's down link, one switch between them. The fabric is one node too
// (NvSwitchRoutes::fabric()), the end of NVLS's reduce reads and the source of its multicasts.
// Fidelity: the four (A100: six) NVSwitch chips are one non-blocking switch, the GPU's links
// one trunk (NCCL and the switches spread traffic over all of them); both the flow-level and
// the packet-level ICI models run on it (models/ici/ici_network.h).

#include <memory>

#include "models/ici/ici_network.h"
#include "models/nvlink/nvlink_config.h"

namespace systole::models {

/// The routes of a one-level NVSwitch node: up link g (GPU g to the fabric) is link g, down
/// link g (fabric to GPU g) is link N + g.
class NvSwitchRoutes : public IciRoutes {
 public:
  explicit NvSwitchRoutes(int gpus) : gpus_(gpus) {}
  int gpus() const { return gpus_; }
  /// The fabric's node id (after the GPUs').
  ChipId fabric() const { return static_cast<ChipId>(gpus_); }
  LinkId up(ChipId g) const { return g; }
  LinkId down(ChipId g) const { return static_cast<LinkId>(gpus_) + g; }
  int link_slots() const override { return 2 * gpus_; }
  /// GPU -> GPU: up, down; GPU -> fabric: up; fabric -> GPU: down.
  void route(ChipId src, ChipId dst, std::vector<LinkId>& out) const override;

 private:
  int gpus_;
};

/// Link timing of the node: a packet of `packet_size` on a GPU's trunk of L links at the
/// payload rate; hop = link latency + switch latency.
IciLinkTiming nvlink_timing(const NvlinkConfig& c);

/// The model `c.model` names, over `routes` (which must outlive it).
std::unique_ptr<IciNetwork> make_nvlink_network(const NvlinkConfig& c,
                                                const NvSwitchRoutes& routes);

}  // namespace systole::models
