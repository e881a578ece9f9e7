#pragma once
// A simulatable system kind (registered under category "system"). Constructing one validates
// the `system:` section without touching SystemC, so the parent process can check every design
// point up front; run() elaborates the SystemC netlist and simulates (once per process).

#include <functional>
#include <memory>
#include <string>

#include "sim/config/node.h"
#include "sim/stats/result.h"
#include "workloads/ir/layer.h"

namespace systole::models {

struct RunOptions {
  bool trace = false;
};

/// A system's headline figures, by which comparisons normalise (simrun's `/compare`).
struct Peaks {
  double flops = 0;          ///< dense bf16 FLOP/s of the whole chip
  double hbm_bandwidth = 0;  ///< B/s
  double tdp_watts = 0;      ///< power limit; 0 when unpublished
};

class System {
 public:
  virtual ~System() = default;
  /// Checks that every layer maps onto this system; throws WorkloadError otherwise.
  virtual void check(const workloads::Workload& w) const = 0;
  /// The compiled plan, for people (simrun --plan): each layer's mapping, tiles, op counts,
  /// bytes per memory level and bounds, without simulating. Throws WorkloadError as check().
  virtual std::string plan(const workloads::Workload& w) const = 0;
  /// Simulates the workload; fills layers, units, metrics and (optionally) the trace.
  virtual stats::PointResult run(const workloads::Workload& w, const RunOptions& opt) = 0;
  /// Peak compute, memory bandwidth and power, from the configuration.
  virtual Peaks peaks() const = 0;
};

/// Registry factory for category "system": builds a System from the `system:` node.
using SystemFactory =
    std::function<std::unique_ptr<System>(const config::Node& system, const std::string& path)>;

}  // namespace systole::models
