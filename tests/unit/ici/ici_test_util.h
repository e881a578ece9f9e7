#pragma once
// Helpers for the ICI tests: configs with schema defaults, random slices and link timings.
#include <random>

#include "models/ici/ici_config.h"
#include "models/ici/ici_network.h"
#include "sim/config/node.h"

namespace systole::models::test {

/// The schema's defaults (a TPU v4 4x4x4 torus).
inline IciConfig ici_defaults() { return IciConfig::schema().load(config::Node::map(), "ici"); }

/// A config of `kind` and `shape`, model `m`, other keys at their defaults.
inline IciConfig ici_config(IciTopologyKind kind, std::array<std::int64_t, 3> shape,
                            IciModel m = IciModel::kFlow) {
  IciConfig c = ici_defaults();
  c.topology = kind;
  c.shape = shape;
  c.model = m;
  return c;
}

/// Credits that just cover the credit loop of `c` (so no message is credit-bound).
inline std::int64_t loop_credits(const IciConfig& c) {
  const IciLinkTiming t = IciLinkTiming::from(c);
  const std::uint64_t loop = 2 * t.link_ps + t.router_ps + t.packet_ps;
  return static_cast<std::int64_t>((loop + t.packet_ps - 1) / t.packet_ps);
}

}  // namespace systole::models::test
