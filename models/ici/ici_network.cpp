#include "models/ici/ici_network.h"

#include <algorithm>
#include <cmath>

#include "models/ici/ici_flow_model.h"
#include "models/ici/ici_packet_model.h"
#include "sim/core/error.h"

namespace systole::models {

IciLinkTiming IciLinkTiming::from(const IciConfig& c) {
  IciLinkTiming t;
  t.packet_bytes = c.packet_size.value();
  t.packet_ps = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(t.packet_bytes) * 1e12 / c.link_bandwidth.value()));
  t.packet_ps = std::max<std::uint64_t>(t.packet_ps, 1);
  t.link_ps = c.link_latency.value();
  t.router_ps = c.router_latency.value();
  t.credits = static_cast<std::uint64_t>(c.credits);
  return t;
}

std::uint64_t IciLinkTiming::serialization_ps(std::uint64_t bytes) const {
  __extension__ using U128 = unsigned __int128;
  const U128 num = static_cast<U128>(bytes) * packet_ps + (packet_bytes - 1);
  return static_cast<std::uint64_t>(num / packet_bytes);
}

double IciLinkTiming::credit_share() const {
  const double loop = static_cast<double>(2 * link_ps + router_ps + packet_ps);
  return std::min(1.0, static_cast<double>(credits * packet_ps) / loop);
}

const IciTopology& IciNetwork::topology() const {
  const auto* t = dynamic_cast<const IciTopology*>(&routes_);
  if (t == nullptr) throw SimError("this network does not run on an ICI torus topology");
  return *t;
}

std::unique_ptr<IciNetwork> make_ici_network(const IciConfig& c, const IciTopology& topo) {
  const IciLinkTiming t = IciLinkTiming::from(c);
  if (c.model == IciModel::kPacket) return std::make_unique<IciPacketModel>(topo, t);
  return std::make_unique<IciFlowModel>(topo, t);
}

}  // namespace systole::models
