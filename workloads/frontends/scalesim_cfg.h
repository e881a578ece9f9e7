#pragma once
// Reads a SCALE-Sim v2 .cfg file (Python configparser INI: [section], `key = value` or
// `key: value`, keys case-insensitive, `#`/`;` comment lines) into the array the scalesim model
// needs. Required as in SCALE-Sim: [general] run_name; [architecture_presets] ArrayHeight,
// ArrayWidth, IfmapSramSzkB, FilterSramSzkB, OfmapSramSzkB, IfmapOffset, FilterOffset,
// OfmapOffset, Dataflow (and Bandwidth in USER mode); [run_presets] InterfaceBandwidth.
// Errors are ConfigErrors naming file and line ("scale.cfg:7: ArrayWidth: expected a positive
// integer, got 'x'"); simrun exits 2 on them.

#include <cstdint>
#include <string>
#include <vector>

#include "models/scalesim/scalesim_timing.h"
#include "sim/core/error.h"

namespace systole::workloads {

/// One `key = value` line as written.
struct ScalesimCfgEntry {
  std::string section;
  std::string key;  ///< as written (configparser matches keys case-insensitively)
  std::string value;
  int line = 0;
};

/// A parsed SCALE-Sim configuration.
struct ScalesimConfig {
  std::string path;
  std::string run_name;
  models::scalesim::ArrayConfig arch;
  std::int64_t ifmap_offset = 0, filter_offset = 10000000, ofmap_offset = 20000000;
  std::vector<std::int64_t> bandwidths;   ///< Bandwidth list (USER mode; the first one is used)
  std::string topology_path;              ///< [network_presets] TopologyCsvLoc, if given
  std::vector<ScalesimCfgEntry> entries;  ///< every line read, in file order
  std::vector<std::string> warnings;      ///< ignored keys ("file:line: ...")
  /// The configuration as YAML (for /config of the results file).
  std::string to_yaml() const;
};

/// Parses `path`; throws ConfigError (file:line: key: what was expected).
ScalesimConfig load_scalesim_cfg(const std::string& path);
/// Parses INI text as if read from `path`.
ScalesimConfig parse_scalesim_cfg(const std::string& text, const std::string& path);

/// "os" | "ws" | "is" -> Dataflow; throws ConfigError at `origin` naming `key` otherwise.
models::scalesim::Dataflow parse_scalesim_dataflow(const std::string& value, const Origin& origin,
                                                   const std::string& key);

}  // namespace systole::workloads
