#include "sim/sweep/expand.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "sim/core/error.h"
#include "sim/core/hash.h"
#include "sim/core/text.h"
#include "sim/sweep/sample.h"

namespace systole::sweep {

using config::Node;

std::string value_text(const Node& v) {
  if (v.is_scalar()) return v.text();
  std::vector<std::string> parts;
  if (v.is_seq()) {
    for (const auto& i : v.items()) parts.push_back(value_text(i));
    return "[" + join(parts, ", ") + "]";
  }
  if (v.is_map()) {
    for (const auto& e : v.entries()) parts.push_back(e.key + ": " + value_text(e.value));
    return "{" + join(parts, ", ") + "}";
  }
  return "~";
}

std::string Point::label() const {
  if (assignments.empty()) return "base";
  std::vector<std::string> parts;
  for (const auto& [path, v] : assignments) parts.push_back(path + "=" + value_text(v));
  return join(parts, ", ");
}

std::string point_key(const std::vector<std::pair<std::string, Node>>& assignments) {
  std::vector<std::string> lines;
  for (const auto& [path, v] : assignments) lines.push_back(path + "=" + value_text(v));
  std::sort(lines.begin(), lines.end());
  return short_hash(join(lines, "\n"));
}

namespace {

// One sweep axis: a set of paths that advance together, with N values each.
struct Axis {
  std::vector<std::string> paths;
  std::vector<std::vector<Node>> values;  // values[path_index][i]
  std::string where;                      // "sweep.PATH", "sweep.zip[0]", "sweep.sample"
  Origin origin;
  size_t repeated = 0;  // sample: drawn points dropped as repeats
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

/// A path swept twice (as an axis and in a zip group, or in two groups) would get two values at
/// once: an error at its second mention.
void check_swept_once(const std::vector<Axis>& axes, const std::string& path, const Origin& o) {
  for (const auto& a : axes)
    if (std::find(a.paths.begin(), a.paths.end(), path) != a.paths.end())
      throw ConfigError(o, "sweep." + path,
                        a.paths.size() > 1
                            ? "already swept in a zip group; a path can vary along one axis only"
                            : "already swept as an axis of its own; a path can vary along one "
                              "axis only");
}

Axis sampled_axis(const Node& spec) {
  SampledAxes s = sample_axes(spec);
  Axis a;
  a.where = "sweep.sample";
  a.origin = spec.origin();
  a.paths = std::move(s.paths);
  a.values = std::move(s.values);
  a.repeated = s.repeated;
  return a;
}

/// Each path is swept by one axis, and no axis lists the same values twice: a design point
/// runs once and its key (point_key) names it alone.
void check_distinct(const std::vector<Axis>& axes) {
  std::map<std::string, std::string> owner;
  for (const auto& a : axes)
    for (const auto& p : a.paths)
      if (!owner.emplace(p, a.where).second)
        throw ConfigError(
            a.origin, a.where,
            fmt::format("{} is swept twice (also by {}); sweep each path once", p, owner[p]));
  for (const auto& a : axes) {
    std::set<std::string> seen;
    for (size_t i = 0; i < a.size(); ++i) {
      std::vector<std::string> parts;
      for (size_t k = 0; k < a.paths.size(); ++k)
        parts.push_back((a.paths.size() > 1 ? a.paths[k] + "=" : "") + value_text(a.values[k][i]));
      if (!seen.insert(join(parts, ", ")).second)
        throw ConfigError(
            a.values[0][i].origin().file.empty() ? a.origin : a.values[0][i].origin(), a.where,
            fmt::format("{} is listed twice: every design point must differ", join(parts, ", ")));
    }
  }
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
        a.where = where;
        a.origin = group.origin();
        for (const auto& ge : group.entries()) {
          check_path(ge.key, ge.key_origin);
          check_swept_once(axes, ge.key, ge.key_origin);
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
    if (e.key == "sample") {
      axes.push_back(sampled_axis(e.value));
      continue;
    }
    check_path(e.key, e.key_origin);
    check_swept_once(axes, e.key, e.key_origin);
    Axis a;
    a.where = "sweep." + e.key;
    a.origin = e.value.origin();
    a.paths.push_back(e.key);
    a.values.push_back(list_of(e.value, "sweep." + e.key));
    axes.push_back(std::move(a));
  }
  check_distinct(axes);
  return axes;
}

}  // namespace

std::vector<std::string> swept_paths(const Node& sweep) {
  std::vector<std::string> out;
  for (const auto& a : axes_of(sweep))
    for (const auto& p : a.paths) out.push_back(p);
  return out;
}

bool path_in_tree(const Node& system, const std::string& path) {
  return config::get_path(system, path.substr(std::string("system.").size())) != nullptr;
}

namespace {

/// The assignments of point `n` of the combinations of `axes` (the last axis varies fastest),
/// `lead` first.
std::vector<std::pair<std::string, Node>> grid_assignments(
    const std::vector<Axis>& axes, const std::vector<std::pair<std::string, Node>>& lead,
    size_t n) {
  std::vector<size_t> idx(axes.size(), 0);
  for (size_t a = axes.size(), rest = n; a-- > 0;) {
    idx[a] = rest % axes[a].size();
    rest /= axes[a].size();
  }
  auto out = lead;
  for (size_t a = 0; a < axes.size(); ++a)
    for (size_t k = 0; k < axes[a].paths.size(); ++k)
      out.emplace_back(axes[a].paths[k], axes[a].values[k][idx[a]]);
  return out;
}

/// Point `n` of the combinations of `axes` over `root`, id `first_id + n`.
Point grid_point(const Node& root, const std::vector<Axis>& axes,
                 const std::vector<std::pair<std::string, Node>>& lead, size_t first_id, size_t n) {
  Point p;
  p.id = static_cast<int>(first_id + n);
  p.root = root;
  p.assignments = grid_assignments(axes, lead, n);
  for (size_t i = lead.size(); i < p.assignments.size(); ++i)
    config::set_path(p.root, p.assignments[i].first, p.assignments[i].second);
  p.key = point_key(p.assignments);
  return p;
}

bool is_system_path(const std::string& path) { return path.rfind("system.", 0) == 0; }

/// `axes` without the paths that do not apply to `system` (an axis left with none is dropped);
/// the dropped paths are appended to `dropped`.
std::vector<Axis> applicable(const std::vector<Axis>& axes, const Node& system,
                             const Applies& applies, std::vector<std::string>* dropped) {
  std::vector<Axis> out;
  for (const auto& a : axes) {
    Axis kept;
    for (size_t k = 0; k < a.paths.size(); ++k) {
      if (is_system_path(a.paths[k]) && !applies(system, a.paths[k])) {
        if (dropped) dropped->push_back(a.paths[k]);
        continue;
      }
      kept.paths.push_back(a.paths[k]);
      kept.values.push_back(a.values[k]);
    }
    if (!kept.paths.empty()) out.push_back(std::move(kept));
  }
  return out;
}

/// Per entry of `systems:`, the swept paths that do not apply to it.
std::vector<std::vector<std::string>> dropped_paths(const config::Experiment& ex,
                                                    const std::vector<Axis>& axes,
                                                    const Applies& applies) {
  std::vector<std::vector<std::string>> out(ex.systems.size());
  for (size_t i = 0; i < ex.systems.size(); ++i)
    applicable(axes, ex.systems[i].system, applies ? applies : path_in_tree, &out[i]);
  return out;
}

/// The number of points of a grid over `axes`, saturating at SIZE_MAX.
size_t grid_size(const std::vector<Axis>& axes) {
  size_t total = 1;
  for (const auto& a : axes) {
    if (a.size() != 0 && total > std::numeric_limits<size_t>::max() / a.size())
      return std::numeric_limits<size_t>::max();
    total *= a.size();
  }
  return total;
}

void check_total(const std::vector<Axis>& axes, size_t before, const Node& sweep) {
  size_t total = 1;
  for (const auto& a : axes) {
    total *= a.size();
    if (before + total > 1000000)
      throw ConfigError(sweep.origin(), "sweep", "the sweep has more than 1,000,000 points");
  }
}

}  // namespace

/// One system's grid: its tree, the axes that apply to it, and its first point id.
struct Plan::Group {
  Node root;
  std::vector<Axis> axes;
  std::vector<std::pair<std::string, Node>> lead;
  size_t first_id = 0, size = 0;
};

namespace {

/// Two points whose keys collide (a 48-bit hash: about one chance in 10^5 at 10^5 points) cannot
/// share /points/<key>; say so rather than mix them up. Keys only: no config tree is built.
void check_keys(const std::vector<std::shared_ptr<const Plan::Group>>& groups) {
  std::map<std::string, std::pair<size_t, const Plan::Group*>> seen;
  for (const auto& g : groups)
    for (size_t n = 0; n < g->size; ++n) {
      const auto key = point_key(grid_assignments(g->axes, g->lead, n));
      const auto [it, fresh] = seen.emplace(key, std::make_pair(g->first_id + n, g.get()));
      if (fresh) continue;
      const auto& [id0, g0] = it->second;
      const auto label = [](const std::vector<std::pair<std::string, Node>>& a) {
        Point p;
        p.assignments = a;
        return p.label();
      };
      throw SimError(fmt::format(
          "design points {} ({}) and {} ({}) hash to the same id {}; change the order of a "
          "sweep list or add a value to tell them apart",
          id0, label(grid_assignments(g0->axes, g0->lead, id0 - g0->first_id)), g->first_id + n,
          label(grid_assignments(g->axes, g->lead, n)), key));
    }
}

}  // namespace

size_t Plan::size() const {
  return groups_.empty() ? 0 : groups_.back()->first_id + groups_.back()->size;
}

Point Plan::point(size_t i) const {
  for (const auto& g : groups_)
    if (i < g->first_id + g->size)
      return grid_point(g->root, g->axes, g->lead, g->first_id, i - g->first_id);
  throw SimError(fmt::format("design point {} of {} requested", i, size()));
}

Plan plan(const config::Experiment& ex, const Applies& applies) {
  Plan pl;
  const auto axes = axes_of(ex.sweep);
  if (ex.systems.empty()) {
    check_total(axes, 0, ex.sweep);
    pl.groups_.push_back(
        std::make_shared<Plan::Group>(Plan::Group{ex.root, axes, {}, 0, grid_size(axes)}));
    check_keys(pl.groups_);
    return pl;
  }
  // A swept system path that no system has is a mistake, not a note.
  std::map<std::string, size_t> missing;
  for (const auto& paths : dropped_paths(ex, axes, applies))
    for (const auto& d : paths) ++missing[d];
  for (const auto& [path, n] : missing)
    if (n == ex.systems.size())
      throw ConfigError(ex.sweep.origin(), "sweep." + path,
                        "no system of `systems:` has this key (simrun --describe KIND lists "
                        "each kind's keys)");
  for (const auto& s : ex.systems) {
    const auto mine = applicable(axes, s.system, applies ? applies : path_in_tree, nullptr);
    check_total(mine, pl.size(), ex.sweep);
    Node root = ex.root;
    root.erase("systems");
    root.set("system", s.system);
    pl.groups_.push_back(std::make_shared<Plan::Group>(Plan::Group{
        std::move(root), mine, {{"system", Node::scalar(s.name)}}, pl.size(), grid_size(mine)}));
  }
  check_keys(pl.groups_);
  return pl;
}

std::vector<Point> expand(const config::Experiment& ex, const Applies& applies) {
  const Plan pl = plan(ex, applies);
  std::vector<Point> points;
  points.reserve(pl.size());
  for (size_t i = 0; i < pl.size(); ++i) points.push_back(pl.point(i));
  return points;
}

size_t count_points(const config::Experiment& ex, const Applies& applies) {
  const auto axes = axes_of(ex.sweep);
  if (ex.systems.empty()) return grid_size(axes);
  size_t total = 0;
  for (const auto& s : ex.systems) {
    const size_t n =
        grid_size(applicable(axes, s.system, applies ? applies : path_in_tree, nullptr));
    if (n > std::numeric_limits<size_t>::max() - total) return std::numeric_limits<size_t>::max();
    total += n;
  }
  return total;
}

std::vector<std::string> sweep_notes(const config::Experiment& ex, const Applies& applies) {
  std::vector<std::string> notes;
  const auto axes = axes_of(ex.sweep);
  for (const auto& a : axes)
    if (a.repeated > 0)
      notes.push_back(fmt::format(
          "sweep.sample: {} of the {} drawn points repeated an earlier one and were dropped "
          "({} remain)",
          a.repeated, a.repeated + a.size(), a.size()));
  const auto dropped = dropped_paths(ex, axes, applies);
  for (size_t i = 0; i < ex.systems.size(); ++i)
    for (const auto& d : dropped[i])
      notes.push_back(
          fmt::format("sweep.{} does not apply to system {} (it has no such key): "
                      "its points run once, at {}'s own value",
                      d, ex.systems[i].name, ex.systems[i].name));
  return notes;
}

}  // namespace systole::sweep
