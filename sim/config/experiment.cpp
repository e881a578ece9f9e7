#include "sim/config/experiment.h"

#include <fmt/format.h>

#include "sim/core/text.h"

namespace systole::config {

const SchemaOf<OutputConfig>& OutputConfig::schema() {
  static const SchemaOf<OutputConfig> s = [] {
    SchemaOf<OutputConfig> b("output", "where and what a run writes");
    b.text("file", &OutputConfig::file, std::string("results.h5"),
           "HDF5 results file (written to a temporary name, renamed when complete)")
        .boolean("trace", &OutputConfig::trace, false,
                 "write one record per operation to /points/<id>/trace")
        .boolean("summary", &OutputConfig::summary, true, "print the summary table on stdout");
    return b;
  }();
  return s;
}

const std::vector<std::string>& experiment_keys() {
  static const std::vector<std::string> k = {"name",     "description", "system",
                                             "workload", "sweep",       "output"};
  return k;
}

namespace {

bool is_sweep_axis(const Node& sweep, const std::string& path) {
  if (!sweep.is_map()) return false;
  return sweep.find(path) != nullptr;
}

void drop_from_zip(Node& sweep, const std::string& path) {
  Node* zip = sweep.find("zip");
  if (!zip || !zip->is_seq()) return;
  for (auto& g : zip->items())
    if (g.is_map()) g.erase(path);
}

}  // namespace

Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  Experiment ex;
  ex.file = path;
  Node raw = load_yaml_file(path);
  if (!raw.is_map())
    throw ConfigError(
        raw.origin(), "",
        fmt::format("expected a mapping with 'system:' and 'workload:', got {}", raw.kind_name()));
  Node root = resolve_bases(raw);

  for (const auto& e : root.entries()) {
    const auto& keys = experiment_keys();
    if (std::find(keys.begin(), keys.end(), e.key) == keys.end())
      throw ConfigError(e.key_origin, e.key,
                        "unknown top-level key" + did_you_mean(e.key, keys) +
                            "; an experiment has " + join(keys));
  }

  Node sweep;
  if (const Node* s = root.find("sweep")) sweep = *s;
  root.erase("sweep");

  for (const auto& text : overrides) {
    auto [key, value] = parse_override(text);
    if (key.rfind("sweep.", 0) == 0) {
      if (!sweep.is_map()) sweep = Node::map(value.origin());
      sweep.set(key.substr(6), value, value.origin());
      continue;
    }
    if (is_sweep_axis(sweep, key)) sweep.erase(key);
    if (sweep.is_map()) drop_from_zip(sweep, key);
    set_path(root, key, value);
  }

  for (const char* required : {"system", "workload"}) {
    const Node* n = root.find(required);
    if (!n || n->is_null())
      throw ConfigError(Origin{path}, required, fmt::format("missing '{}:' section", required));
  }
  if (const Node* n = root.find("name")) ex.name = to_string(*n, "name");
  if (const Node* n = root.find("description")) ex.description = to_string(*n, "description");
  static const Node kNull;
  const Node* out = root.find("output");
  ex.output = OutputConfig::schema().load(out ? *out : kNull, "output");
  ex.root = std::move(root);
  ex.sweep = std::move(sweep);
  return ex;
}

}  // namespace systole::config
