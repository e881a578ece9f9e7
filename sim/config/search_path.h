#pragma once
// Where the files an experiment names are looked up (`base:`, `workload: FILE`, and the same keys
// given with -p). One rule everywhere: an absolute path as is; a relative one in order in
//   (a) the folder of the file that names it (for -p: the current directory),
//   (b) the experiment's folder,
//   (c) the repository's configs/, configs/presets/, workloads/ and its root,
//   (d) each folder of SYSTOLE_PATH (colon-separated).
// The first match wins. Every name resolved is recorded, so a results file says what was used.

#include <string>
#include <vector>

#include "sim/core/error.h"

namespace systole::config {

/// One folder of the search path and why it is there.
struct SearchDir {
  std::string dir;
  std::string source;  // "naming file", "current directory", "experiment", "repository", ...
  bool exists = false;
};

/// Sets the experiment whose folder is step (b); load_experiment calls it.
void set_experiment_file(const std::string& path);

/// The repository root: the folder two above the running executable (build/bin/simrun) when it
/// holds configs/, else the source folder compiled in; empty when neither exists.
const std::string& repository_root();

/// The folders searched for a name written at `from`, in order, duplicates removed.
std::vector<SearchDir> search_path(const Origin& from);

/// `simrun --describe paths [EXP.yaml]`: the search path, one folder a line, whether it exists
/// and why (with the experiment's folder when `experiment` is given).
std::string describe_search_path(const std::string& experiment = "");

/// Resolves `name` written at `from` (at YAML path `yaml_path`); ConfigError (exit 2) naming the
/// folders searched, with a did-you-mean, when it is nowhere.
std::string find_on_search_path(const std::string& name, const Origin& from,
                                const std::string& yaml_path);

/// One name resolved: "workloads/resnet50.yaml (configs/tpuv4.yaml:12:11) -> /repo/workloads/...".
struct Resolution {
  std::string name, named_at, path;
  std::string text() const;
};
/// Every name resolved in this process so far, each once, in order.
const std::vector<Resolution>& resolutions();

}  // namespace systole::config
