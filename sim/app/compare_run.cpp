#include "sim/app/compare_run.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "sim/config/node.h"
#include "sim/core/error.h"
#include "sim/core/text.h"
#include "sim/core/units.h"
#include "sim/stats/results_file.h"
#include "sim/stats/summary.h"

namespace systole::app {

namespace {

constexpr const char* kCompareUsage =
    "usage: simrun compare A.h5 B.h5\n"
    "  the difference between two results files: the configuration keys that differ, each\n"
    "  design point's figures (points matched by their swept values) and the layers whose\n"
    "  time changed (matched by name)\n";

/// Every scalar of a YAML tree as "a.b[2].c" -> value.
void flatten(const config::Node& n, const std::string& path,
             std::map<std::string, std::string>& out) {
  if (n.is_map()) {
    for (const auto& e : n.entries())
      flatten(e.value, path.empty() ? e.key : path + "." + e.key, out);
  } else if (n.is_seq()) {
    for (size_t i = 0; i < n.items().size(); ++i)
      flatten(n.items()[i], fmt::format("{}[{}]", path, i), out);
  } else {
    out[path] = n.is_null() ? "~" : n.text();
  }
}

std::map<std::string, std::string> config_of(const stats::PointResult& p, const std::string& file) {
  std::map<std::string, std::string> out;
  if (!p.config_yaml.empty())
    flatten(config::parse_yaml(p.config_yaml, file + ":/config/" + std::to_string(p.id)), "", out);
  return out;
}

std::string change(double a, double b) {
  if (a == b) return "=";
  if (a == 0) return "new";
  return fmt::format("{:+.1f}%", 100 * (b / a - 1));
}

std::vector<stats::PointResult> load(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw ConfigError({"<command line>"}, "compare",
                      fmt::format("'{}' is not a results file (no such file)", file));
  return stats::read_points_isolated(file);
}

/// Keys whose value differs between matched points: key -> "A -> B" (or "varies by point").
std::map<std::string, std::string> differing_keys(
    const std::vector<std::pair<const stats::PointResult*, const stats::PointResult*>>& pairs,
    const std::string& fa, const std::string& fb) {
  std::map<std::string, std::string> out;
  for (const auto& [a, b] : pairs) {
    const auto ca = config_of(*a, fa), cb = config_of(*b, fb);
    std::map<std::string, std::string> here;
    for (const auto& [k, v] : ca) {
      const auto it = cb.find(k);
      const std::string w = it == cb.end() ? "(absent)" : it->second;
      if (w != v) here[k] = v + " -> " + w;
    }
    for (const auto& [k, v] : cb)
      if (!ca.count(k)) here[k] = "(absent) -> " + v;
    for (const auto& [k, d] : here) {
      const auto it = out.find(k);
      if (it == out.end())
        out[k] = d;
      else if (it->second != d)
        it->second = "varies by point";
    }
  }
  return out;
}

std::string layers_diff(const stats::PointResult& a, const stats::PointResult& b) {
  std::map<std::string, size_t> in_b;
  for (size_t i = 0; i < b.layers.rows().size(); ++i) in_b[b.layers.get_string(i, "layer")] = i;
  std::vector<std::vector<std::string>> rows;
  size_t same = 0;
  for (size_t i = 0; i < a.layers.rows().size(); ++i) {
    const std::string name = a.layers.get_string(i, "layer");
    const auto it = in_b.find(name);
    if (it == in_b.end()) {
      rows.push_back({name, format_quantity(a.layers.get_number(i, "time"), Dimension::kTime), "-",
                      "only in A", a.layers.get_string(i, "tile"), ""});
      continue;
    }
    const double ta = a.layers.get_number(i, "time"), tb = b.layers.get_number(it->second, "time");
    const std::string tile_a = a.layers.get_string(i, "tile"),
                      tile_b = b.layers.get_string(it->second, "tile");
    in_b.erase(it);
    if (ta == tb && tile_a == tile_b) {
      ++same;
      continue;
    }
    rows.push_back({name, format_quantity(ta, Dimension::kTime),
                    format_quantity(tb, Dimension::kTime), change(ta, tb), tile_a,
                    tile_b == tile_a ? "same" : tile_b});
  }
  for (const auto& [name, i] : in_b)
    rows.push_back({name, "-", format_quantity(b.layers.get_number(i, "time"), Dimension::kTime),
                    "only in B", "", b.layers.get_string(i, "tile")});
  std::string out;
  if (!rows.empty())
    out = stats::format_table({"layer", "time A", "time B", "change", "tile A", "tile B"}, rows);
  if (same) out += fmt::format("({} layer{} unchanged)\n", same, same == 1 ? "" : "s");
  return out;
}

}  // namespace

int run_compare(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    std::cout << kCompareUsage;
    return 0;
  }
  if (args.size() != 2)
    throw ConfigError(
        {"<command line>"}, "compare",
        fmt::format("expected two results files, got {}\n{}", args.size(), kCompareUsage));
  const std::string& fa = args[0];
  const std::string& fb = args[1];
  const auto pa = load(fa), pb = load(fb);
  std::map<std::string, const stats::PointResult*> by_label;
  for (const auto& p : pb) by_label[p.label] = &p;
  std::vector<std::pair<const stats::PointResult*, const stats::PointResult*>> pairs;
  std::vector<std::string> only_a;
  for (const auto& p : pa) {
    const auto it = by_label.find(p.label);
    if (it == by_label.end()) {
      only_a.push_back(p.label);
      continue;
    }
    pairs.emplace_back(&p, it->second);
    by_label.erase(it);
  }
  auto points = [](size_t n) { return fmt::format("{} point{}", n, n == 1 ? "" : "s"); };
  std::cout << fmt::format("A: {} ({})\nB: {} ({})\n{} matched by their swept values\n", fa,
                           points(pa.size()), fb, points(pb.size()), pairs.size());
  const auto keys = differing_keys(pairs, fa, fb);
  std::cout << (keys.empty() ? "\nconfiguration keys that differ: none\n"
                             : "\nconfiguration keys that differ:\n");
  for (const auto& [k, d] : keys) std::cout << fmt::format("  {}: {}\n", k, d);

  std::vector<std::vector<std::string>> rows;
  for (const auto& [a, b] : pairs) {
    const double ta = a->metrics.number("time"), tb = b->metrics.number("time");
    rows.push_back({a->label, a->status == b->status ? a->status : a->status + " -> " + b->status,
                    format_quantity(ta, Dimension::kTime), format_quantity(tb, Dimension::kTime),
                    change(ta, tb),
                    fmt::format("{:.3f} -> {:.3f}", a->metrics.number("mac_utilization"),
                                b->metrics.number("mac_utilization")),
                    change(a->metrics.number("hbm_bytes"), b->metrics.number("hbm_bytes"))});
  }
  if (!rows.empty())
    std::cout << "\n"
              << stats::format_table(
                     {"point", "status", "time A", "time B", "time", "MAC util", "HBM bytes"},
                     rows);
  for (const auto& [a, b] : pairs) {
    if (!a->ok() || !b->ok()) continue;
    const std::string d = layers_diff(*a, *b);
    std::cout << fmt::format("\n{}:\n{}", a->label, d);
  }
  for (const auto& l : only_a) std::cout << fmt::format("\nonly in A: {}\n", l);
  for (const auto& [l, p] : by_label) std::cout << fmt::format("\nonly in B: {}\n", l);
  return 0;
}

}  // namespace systole::app
