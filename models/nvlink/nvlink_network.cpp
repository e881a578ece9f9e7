#include "models/nvlink/nvlink_network.h"

#include <algorithm>
#include <cmath>

#include "models/ici/ici_flow_model.h"
#include "models/ici/ici_packet_model.h"
#include "sim/core/error.h"

namespace systole::models {

void NvSwitchRoutes::route(ChipId src, ChipId dst, std::vector<LinkId>& out) const {
  if (src == dst) return;
  const ChipId f = fabric();
  SYSTOLE_ASSERT(src <= f && dst <= f, "no such node on the NVSwitch fabric");
  if (src != f) out.push_back(up(src));
  if (dst != f) out.push_back(down(dst));
}

IciLinkTiming nvlink_timing(const NvlinkConfig& c) {
  IciLinkTiming t;
  t.packet_bytes = c.packet_size.value();
  t.packet_ps = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(t.packet_bytes) * 1e12 / c.gpu_bandwidth()));
  t.packet_ps = std::max<std::uint64_t>(t.packet_ps, 1);
  t.link_ps = c.link_latency.value();
  t.router_ps = c.switch_latency.value();
  t.credits = static_cast<std::uint64_t>(c.credits);
  return t;
}

std::unique_ptr<IciNetwork> make_nvlink_network(const NvlinkConfig& c,
                                                const NvSwitchRoutes& routes) {
  const IciLinkTiming t = nvlink_timing(c);
  if (c.model == NvlinkModel::kPacket) return std::make_unique<IciPacketModel>(routes, t);
  return std::make_unique<IciFlowModel>(routes, t);
}

}  // namespace systole::models
