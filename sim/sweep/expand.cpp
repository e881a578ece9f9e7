#include "sim/sweep/expand.h"

#include <fmt/format.h>

#include "sim/core/text.h"

namespace systole::sweep {

using config::Node;

std::string Point::label() const {
  if (assignments.empty()) return "base";
  std::vector<std::string> parts;
  for (const auto& [path, v] : assignments)
    parts.push_back(path + "=" +
                    (v.is_scalar() ? v.text() : "<" + std::string(v.kind_name()) + ">"));
  return join(parts, ", ");
}

namespace {

// One sweep axis: a set of paths that advance together, with N values each.
struct Axis {
  std::vector<std::string> paths;
  std::vector<std::vector<Node>> values;  // values[path_index][i]
  size_t size() const { return values.empty() ? 0 : values[0].size(); }
};

void check_path(const std::string& path, const Origin& o) {
  const std::string root = path.substr(0, path.find_first_of(".["));
  static const std::vector<std::string> allowed = {"system", "workload"};
  if (std::find(allowed.begin(), allowed.end(), root) == allowed.end())
    throw ConfigError(
        o, "sweep." + path,
        "a sweep path must start with system. or workload." + did_you_mean(root, allowed));
}

const std::vector<Node>& list_of(const Node& n, const std::string& where) {
  if (!n.is_seq())
    throw ConfigError(n.origin(), where,
                      fmt::format("expected a list of values to sweep, got {}", n.kind_name()));
  if (n.items().empty()) throw ConfigError(n.origin(), where, "the sweep list is empty");
  return n.items();
}

std::vector<Axis> axes_of(const Node& sweep) {
  std::vector<Axis> axes;
  if (sweep.is_null()) return axes;
  if (!sweep.is_map())
    throw ConfigError(sweep.origin(), "sweep",
                      fmt::format("expected a mapping of config paths to value lists, got {}",
                                  sweep.kind_name()));
  for (const auto& e : sweep.entries()) {
    if (e.key == "zip") {
      if (!e.value.is_seq())
        throw ConfigError(
            e.value.origin(), "sweep.zip",
            "expected a list of groups, each a mapping of paths to equal-length lists");
      for (size_t g = 0; g < e.value.items().size(); ++g) {
        const Node& group = e.value.items()[g];
        const std::string where = fmt::format("sweep.zip[{}]", g);
        if (!group.is_map() || group.entries().empty())
          throw ConfigError(group.origin(), where, "expected a mapping of paths to value lists");
        Axis a;
        for (const auto& ge : group.entries()) {
          check_path(ge.key, ge.key_origin);
          const auto& vals = list_of(ge.value, where + "." + ge.key);
          if (!a.values.empty() && vals.size() != a.size())
            throw ConfigError(ge.value.origin(), where + "." + ge.key,
                              fmt::format("zip lists must have equal lengths: {} has {}, {} has {}",
                                          a.paths[0], a.size(), ge.key, vals.size()));
          a.paths.push_back(ge.key);
          a.values.push_back(vals);
        }
        axes.push_back(std::move(a));
      }
      continue;
    }
    check_path(e.key, e.key_origin);
    Axis a;
    a.paths.push_back(e.key);
    a.values.push_back(list_of(e.value, "sweep." + e.key));
    axes.push_back(std::move(a));
  }
  return axes;
}

}  // namespace

std::vector<std::string> swept_paths(const Node& sweep) {
  std::vector<std::string> out;
  for (const auto& a : axes_of(sweep))
    for (const auto& p : a.paths) out.push_back(p);
  return out;
}

std::vector<Point> expand(const config::Experiment& ex) {
  const auto axes = axes_of(ex.sweep);
  size_t total = 1;
  for (const auto& a : axes) {
    total *= a.size();
    if (total > 1000000)
      throw ConfigError(ex.sweep.origin(), "sweep", "the sweep has more than 1,000,000 points");
  }
  std::vector<Point> points;
  points.reserve(total);
  std::vector<size_t> idx(axes.size(), 0);
  for (size_t n = 0; n < total; ++n) {
    Point p;
    p.id = static_cast<int>(n);
    p.root = ex.root;
    for (size_t a = 0; a < axes.size(); ++a) {
      for (size_t k = 0; k < axes[a].paths.size(); ++k) {
        const Node& v = axes[a].values[k][idx[a]];
        p.assignments.emplace_back(axes[a].paths[k], v);
        config::set_path(p.root, axes[a].paths[k], v);
      }
    }
    points.push_back(std::move(p));
    // Odometer: the last axis varies fastest.
    for (size_t a = axes.size(); a-- > 0;) {
      if (++idx[a] < axes[a].size()) break;
      idx[a] = 0;
    }
  }
  return points;
}

}  // namespace systole::sweep
