#include "sim/config/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/config/search_path.h"
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
  static const std::vector<std::string> k = {"name",     "description", "system", "systems",
                                             "workload", "sweep",       "output"};
  return k;
}

namespace {

bool is_sweep_axis(const Node& sweep, const std::string& path) {
  if (!sweep.is_map()) return false;
  return sweep.find(path) != nullptr;
}

/// A path -p set, and where (the command-line argument).
using Given = std::vector<std::pair<std::string, Origin>>;

/// -p on members of a zip group: when every member is given the group goes (the values are
/// fixed); when only some are, the others would go on sweeping against a fixed partner, so that
/// is an error naming the first argument and the members it leaves out.
void apply_zip_overrides(Node& sweep, const Given& given) {
  Node* zip = sweep.is_map() ? sweep.find("zip") : nullptr;
  if (!zip || !zip->is_seq()) return;
  std::vector<Node> kept;
  for (size_t g = 0; g < zip->items().size(); ++g) {
    const Node& group = zip->items()[g];
    std::vector<std::string> missing;
    const Given::value_type* first = nullptr;
    for (const auto& e : group.is_map() ? group.entries() : std::vector<Node::Entry>{}) {
      const auto it = std::find_if(given.begin(), given.end(),
                                   [&](const auto& gv) { return gv.first == e.key; });
      if (it == given.end())
        missing.push_back(e.key);
      else if (!first)
        first = &*it;
    }
    if (!first) {
      kept.push_back(group);
      continue;
    }
    if (!missing.empty())
      throw ConfigError(
          first->second, first->first,
          fmt::format("is swept together with {} (sweep.zip[{}] at {}); fixing one member of a "
                      "zip group would pair it with every value of the others: give {} with -p "
                      "too, or override the group with -p 'sweep.zip=[...]'",
                      join(missing), g, group.origin().str(), join(missing)));
  }
  zip->items() = std::move(kept);
  if (zip->items().empty()) sweep.erase("zip");
}

/// A -p path must start at a top-level key: `-p sytem.chip.clock=2GHz` or `-p foo.bar=1` was set
/// in a part of the tree nothing reads, and the run went on with the file's values (issue 14).
/// The path `--describe` prints (`chip.mxu.rows`) is suggested under `system.`.
void check_override_root(const std::string& key, const Origin& at) {
  const std::string root = key.substr(0, key.find_first_of(".["));
  const auto& keys = experiment_keys();
  if (std::find(keys.begin(), keys.end(), root) != keys.end()) return;
  const std::string hint = root == "chip" || root == "device" || root == "mapping" || root == "kind"
                               ? " (did you mean 'system." + key + "'?)"
                               : did_you_mean(root, keys);
  throw ConfigError(
      at, key, "unknown top-level key '" + root + "'" + hint + "; an experiment has " + join(keys));
}

/// `workload: FILE` is `workload: {file: FILE}`, so -p and sweeps can set workload.params.
void normalise_workload(Node& root) {
  Node* w = root.find("workload");
  if (!w || !w->is_scalar()) return;
  Node m = Node::map(w->origin());
  m.set("file", *w, w->origin());
  *w = std::move(m);
}

/// A -p on a sampled path fixes it: the path leaves `sweep.sample.axes` (and the sample goes
/// when no axis is left).
void drop_from_sample(Node& sweep, const std::string& path) {
  Node* sample = sweep.find("sample");
  Node* axes = sample && sample->is_map() ? sample->find("axes") : nullptr;
  if (!axes || !axes->is_map() || !axes->erase(path)) return;
  if (axes->entries().empty()) sweep.erase("sample");
}

/// `sweep.sample.axes`, created when missing (for -p sweep.sample.axes.PATH=...).
Node& sample_axes_of(Node& sweep, const Origin& o) {
  Node* sample = sweep.find("sample");
  if (!sample) sample = &sweep.set("sample", Node::map(o), o);
  if (!sample->is_map())
    throw ConfigError(o, "sweep.sample",
                      "expected a mapping, got " + std::string(sample->kind_name()));
  Node* axes = sample->find("axes");
  if (!axes) axes = &sample->set("axes", Node::map(o), o);
  if (!axes->is_map())
    throw ConfigError(o, "sweep.sample.axes",
                      "expected a mapping, got " + std::string(axes->kind_name()));
  return *axes;
}

/// `systems:` → its entries, each `{system: ...}` after its `base:` was merged in.
std::vector<SystemEntry> systems_of(const Node& n) {
  if (!n.is_map() || n.entries().empty())
    throw ConfigError(n.origin(), "systems",
                      fmt::format("expected a mapping of names to systems (each `base: PRESET` "
                                  "plus `system:` overrides), got {}",
                                  n.is_map() ? "an empty mapping" : n.kind_name()));
  std::vector<SystemEntry> out;
  for (const auto& e : n.entries()) {
    const std::string where = "systems." + e.key;
    const bool name_ok = std::all_of(e.key.begin(), e.key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
    if (!name_ok)
      throw ConfigError(e.key_origin, where,
                        "a system's name may hold letters, digits, '_' and '-' only (it names "
                        "the system in tables and in -p systems.NAME...)");
    if (!e.value.is_map())
      throw ConfigError(e.value.origin(), where,
                        fmt::format("expected a mapping with `base:` and/or `system:`, got {}",
                                    e.value.kind_name()));
    for (const auto& k : e.value.entries())
      if (k.key != "system" && k.key != "name" && k.key != "description")
        throw ConfigError(k.key_origin, where + "." + k.key,
                          "unknown key; a systems entry holds `base: PRESET` and `system:` "
                          "overrides (the workload, sweep and output are the experiment's)");
    const Node* sys = e.value.find("system");
    if (!sys || !sys->is_map())
      throw ConfigError(e.value.origin(), where + ".system",
                        "missing `system:` (give `base: presets/....yaml` or a `system:` "
                        "mapping with `kind:`)");
    out.push_back({e.key, *sys});
  }
  return out;
}

/// A `-p system.…` on an experiment with `systems:` is ambiguous: say how to name one.
void check_override_target(const Node& root, const std::string& key) {
  const Node* systems = root.find("systems");
  if (!systems || (key != "system" && key.rfind("system.", 0) != 0)) return;
  std::vector<std::string> names;
  if (systems->is_map())
    for (const auto& e : systems->entries()) names.push_back(e.key);
  const std::string first = names.empty() ? "NAME" : names.front();
  throw ConfigError({"<command line>"}, key,
                    "this experiment compares several systems (`systems:`: " + join(names) +
                        "); override one of them, e.g. -p systems." + first + "." + key);
}

/// `workload.params.NAME` set by -p or swept, on an inline workload: NAME must be a parameter
/// the workload declares, or the value would be silently unused (a file workload's reader
/// checks its own declarations).
void check_inline_param(const Node& root, const std::string& key, const Origin& at) {
  static const std::string prefix = "workload.params.";
  if (key.rfind(prefix, 0) != 0) return;
  const Node* w = root.find("workload");
  if (!w || !w->is_map() || w->find("file") || !w->find("layers")) return;
  const size_t end = key.find_first_of(".[", prefix.size());
  const std::string name =
      key.substr(prefix.size(), end == std::string::npos ? end : end - prefix.size());
  const Node* params = w->find("params");
  const std::vector<std::string> names =
      params && params->is_map() ? params->keys() : std::vector<std::string>{};
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  throw ConfigError(
      at, key,
      fmt::format("the inline workload has no parameter '{}'{}; params: {}", name,
                  did_you_mean(name, names),
                  names.empty() ? "none (declare it under workload.params)" : join(names)));
}

/// check_inline_param for every swept path (grid axes and zip groups).
void check_swept_params(const Node& root, const Node& sweep) {
  if (!sweep.is_map()) return;
  for (const auto& e : sweep.entries()) {
    if (e.key != "zip") {
      check_inline_param(root, e.key, e.key_origin);
      continue;
    }
    if (!e.value.is_seq()) continue;
    for (const auto& g : e.value.items())
      for (const auto& ge : g.entries()) check_inline_param(root, ge.key, ge.key_origin);
  }
}

}  // namespace

Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  Experiment ex;
  ex.file = path;
  set_experiment_file(path);
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

  normalise_workload(root);
  Given given;
  for (const auto& text : overrides) {
    auto [key, value] = parse_override(text);
    if (key.rfind("sweep.", 0) == 0) {
      if (!sweep.is_map()) sweep = Node::map(value.origin());
      const std::string axes = "sweep.sample.axes.";
      if (key.rfind(axes, 0) == 0) {  // -p sweep.sample.axes.PATH=[lo, hi, log]: PATH is one key
        sample_axes_of(sweep, value.origin()).set(key.substr(axes.size()), value, value.origin());
      } else if (key.rfind("sweep.sample.", 0) == 0) {  // -p sweep.sample.seed=7
        set_path(sweep, key.substr(6), value);
      } else {
        sweep.set(key.substr(6), value, value.origin());
      }
      continue;
    }
    check_override_root(key, value.origin());
    check_override_target(root, key);
    check_inline_param(root, key, value.origin());
    if (is_sweep_axis(sweep, key)) sweep.erase(key);
    if (sweep.is_map()) drop_from_sample(sweep, key);
    given.emplace_back(key, value.origin());
    set_path(root, key, value);
  }
  apply_zip_overrides(sweep, given);

  check_swept_params(root, sweep);

  if (const Node* systems = root.find("systems")) {
    if (const Node::Entry* one = root.find_entry("system"))
      throw ConfigError(one->key_origin, "system",
                        "give either `system:` (one system) or `systems:` (several to compare), "
                        "not both");
    ex.systems = systems_of(*systems);
  } else {
    const Node* n = root.find("system");
    if (!n || n->is_null())
      throw ConfigError(Origin{path}, "system",
                        "missing 'system:' section (or `systems:` to compare several)");
  }
  {
    const Node* n = root.find("workload");
    if (!n || n->is_null())
      throw ConfigError(Origin{path}, "workload", "missing 'workload:' section");
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
