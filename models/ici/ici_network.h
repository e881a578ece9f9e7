#pragma once
// The timing interface both ICI network models implement (plain C++, time in picoseconds): a
// transfer moves `bytes` from one chip to another over the route the topology gives; the model
// says when each transfer has arrived. Models: IciFlowModel (fast default, flow level) and
// IciPacketModel (reference, packet level). The SystemC shell (IciNetworkModule) and the
// collective runner drive either through this interface.
//
// Both models charge a transfer the same way when nothing else shares its links: virtual
// cut-through, so serialisation is paid once, not per hop:
//   arrival = start + hops x (router_latency + link_latency) + ceil(bytes x packet_ps / packet)
// where packet_ps = ceil(packet x 1e12 / bandwidth) is a full packet's time on a link (a whole
// number of picoseconds). A transfer to its own chip arrives at its start.

#include <cstdint>
#include <memory>
#include <vector>

#include "models/ici/ici_config.h"
#include "models/ici/ici_topology.h"

namespace systole::models {

/// Link and router timing shared by the network models, in whole picoseconds.
struct IciLinkTiming {
  std::uint64_t packet_bytes = 512;  ///< payload per packet
  std::uint64_t packet_ps = 1;       ///< a full packet's time on a link
  std::uint64_t link_ps = 0;         ///< link latency (head of a packet, one hop)
  std::uint64_t router_ps = 0;       ///< router traversal
  std::uint64_t credits = 1;         ///< packets a message may hold in one router input

  static IciLinkTiming from(const IciConfig& c);
  std::uint64_t hop_ps() const { return link_ps + router_ps; }
  /// Time `bytes` take to cross a link: ceil(bytes x packet_ps / packet_bytes).
  std::uint64_t serialization_ps(std::uint64_t bytes) const;
  /// Bytes per second a link moves (packet_bytes per packet_ps).
  double bytes_per_second() const {
    return static_cast<double>(packet_bytes) * 1e12 / static_cast<double>(packet_ps);
  }
  /// The share of a link one message's credits allow on a hop followed by another (<= 1):
  /// credits x packet_ps over the credit loop (2 x link + router + packet_ps).
  double credit_share() const;
  /// Time of an uncontended transfer over `hops` links (the formula above).
  std::uint64_t transfer_ps(std::uint64_t bytes, int hops) const {
    return hops == 0 ? 0 : static_cast<std::uint64_t>(hops) * hop_ps() + serialization_ps(bytes);
  }
};

/// A transfer that has arrived, and when.
struct IciCompletion {
  std::uint32_t transfer;
  std::uint64_t at_ps;
};

/// A network model: start transfers, step through events, read completions and link bytes.
class IciNetwork {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};

  /// Over `routes` (an IciTopology, an NvSwitchRoutes, ...), which must outlive the model.
  IciNetwork(const IciRoutes& routes, const IciLinkTiming& timing)
      : routes_(routes),
        timing_(timing),
        link_bytes_(static_cast<std::size_t>(routes.link_slots())) {}
  virtual ~IciNetwork() = default;
  IciNetwork(const IciNetwork&) = delete;
  IciNetwork& operator=(const IciNetwork&) = delete;

  /// Starts moving `bytes` from `src` to `dst` at `at_ps` (not before the time of the last
  /// step). Returns the transfer's id: 0, 1, 2, ... in call order.
  virtual std::uint32_t start(ChipId src, ChipId dst, std::uint64_t bytes, std::uint64_t at_ps) = 0;
  /// When the next event happens; kNever when nothing is under way.
  virtual std::uint64_t next_event_ps() const = 0;
  /// Processes every event at next_event_ps() and appends the transfers that arrived then.
  virtual void step(std::vector<IciCompletion>& done) = 0;
  /// Transfers started and not yet arrived.
  virtual std::size_t in_flight() const = 0;

  /// The torus the network runs on; throws SimError when its routes are not an IciTopology.
  const IciTopology& topology() const;
  const IciRoutes& routes() const { return routes_; }
  const IciLinkTiming& timing() const { return timing_; }
  /// Bytes each directed link (by LinkId) has carried or been given to carry.
  const std::vector<std::uint64_t>& link_bytes() const { return link_bytes_; }
  /// Time link `l` has been (or will be) busy with those bytes.
  double link_busy_ps(LinkId l) const {
    return static_cast<double>(link_bytes_[l]) * static_cast<double>(timing_.packet_ps) /
           static_cast<double>(timing_.packet_bytes);
  }

 protected:
  void add_link_bytes(LinkId l, std::uint64_t b) { link_bytes_[l] += b; }

 private:
  const IciRoutes& routes_;
  IciLinkTiming timing_;
  std::vector<std::uint64_t> link_bytes_;
};

/// The model `c.model` names, over `topo` (which must outlive it).
std::unique_ptr<IciNetwork> make_ici_network(const IciConfig& c, const IciTopology& topo);

}  // namespace systole::models
