#pragma once
// `simrun --scalesim-cfg X.cfg --topology Y.csv [-o out.h5] [--dataflow os|ws|is]`: runs a
// SCALE-Sim v2 configuration and topology through the scalesim timing model and writes
// results.h5 (/meta, /config, /sweep with one point, /points/0/layers with SCALE-Sim's per-layer
// numbers) plus SCALE-Sim's COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and
// DETAILED_ACCESS_REPORT.csv in the <run_name> folder beside it, as SCALE-Sim writes them under
// its log path.

#include <string>

#include "sim/stats/result.h"
#include "workloads/frontends/scalesim_cfg.h"
#include "workloads/frontends/scalesim_topology.h"

namespace systole::app {

struct ScalesimRunOptions {
  std::string cfg;       ///< --scalesim-cfg
  std::string topology;  ///< --topology (default: the cfg's [network_presets] TopologyCsvLoc)
  std::string output;    ///< -o (default results.h5)
  std::string dataflow;  ///< --dataflow, overrides the cfg's Dataflow
  bool quiet = false;
  bool force = false;  ///< --force: replace the reports of an earlier run of the same run_name
};

/// Runs it; returns the exit code (0). Bad input throws ConfigError (exit 2).
int run_scalesim(const ScalesimRunOptions& o, const std::string& command_line);

/// The /points/<id> result of a parsed configuration and topology (layers simulated here).
stats::PointResult scalesim_point(const workloads::ScalesimConfig& cfg,
                                  const workloads::ScalesimTopology& topo);

/// SCALE-Sim's COMPUTE_REPORT.csv / BANDWIDTH_REPORT.csv text for a scalesim point.
std::string scalesim_compute_report(const stats::PointResult& p);
std::string scalesim_bandwidth_report(const stats::PointResult& p);
/// SCALE-Sim's DETAILED_ACCESS_REPORT.csv (SRAM start/stop: the compute window, see README).
std::string scalesim_detailed_report(const stats::PointResult& p);

}  // namespace systole::app
