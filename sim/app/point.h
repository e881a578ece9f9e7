#pragma once
// Building and simulating one design point: the bridge from a resolved config tree to a
// registered system kind and a workload.

#include <memory>

#include "models/systems/system.h"
#include "sim/registry/registry.h"
#include "sim/sweep/expand.h"
#include "workloads/ir/layer.h"

namespace systole::app {

struct PreparedPoint {
  std::unique_ptr<models::System> system;
  workloads::Workload workload;
  config::Node resolved;  ///< the point's tree with every schema default filled in
};

/// Validates the point's system and workload sections (ConfigError on bad input).
PreparedPoint prepare_point(const Registry& reg, const sweep::Point& p);

/// The fingerprint of what a prepared point simulates: its resolved system (every schema default
/// filled in) and workload tree, and every field of its loaded layers (so an edit inside a
/// workload file changes it too). 12 hex digits of FNV-1a.
std::string config_hash(const PreparedPoint& pp);

/// Simulates the point (call in a worker process).
stats::PointResult simulate_point(const Registry& reg, const sweep::Point& p, bool trace);

}  // namespace systole::app
