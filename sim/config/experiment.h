#pragma once
// An experiment file: `system:` (or `base:` naming a preset, plus overrides) or `systems:`
// (several named systems to compare, each a `base:` plus `system:` overrides), `workload:`,
// optional `sweep:` and `output:`. Loading resolves base files and -p overrides; the system
// and workload subtrees are validated later by the schema of the system kind and by the
// workload frontend.

#include <string>
#include <vector>

#include "sim/config/node.h"
#include "sim/config/schema.h"

namespace systole::config {

struct OutputConfig {
  std::string file;     // results file; "-o" overrides
  bool trace = false;   // per-operation event trace in /points/<id>/trace
  bool summary = true;  // text summary on stdout
  static const SchemaOf<OutputConfig>& schema();
};

/// One entry of `systems:`: its name and its resolved `system:` tree.
struct SystemEntry {
  std::string name;
  Node system;
};

struct Experiment {
  std::string file;  // the experiment file as given
  std::string name;
  std::string description;
  Node root;                         // resolved tree (bases merged, -p applied), `sweep` removed
  Node sweep;                        // the sweep mapping, or null
  std::vector<SystemEntry> systems;  // `systems:` in file order; empty: one system (`system:`)
  OutputConfig output;
};

/// Loads `path`, resolves `base:` files, applies `overrides` ("a.b=v"). A -p on a path that the
/// sweep varies replaces that sweep axis. Throws ConfigError.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides);

/// The top-level keys an experiment may have.
const std::vector<std::string>& experiment_keys();

}  // namespace systole::config
