#include "sim/stats/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/core/text.h"
#include "sim/core/units.h"
#include "sim/stats/summary.h"

namespace systole::stats {

namespace {

std::string assigned(const PointResult& r, const std::string& path) {
  for (const auto& [k, v] : r.assignments)
    if (k == path) return v;
  return "";
}

/// "path=value" of the point's assignments in (`keep`) or out of (`!keep`) `paths`, without
/// `system`; workload files by their name.
std::string assignments_text(const PointResult& r, const std::set<std::string>& paths, bool keep) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : r.assignments) {
    if (k == "system" || (paths.count(k) > 0) != keep) continue;
    std::string value = v;
    if (k == "workload.file") value = value.substr(value.find_last_of('/') + 1);
    parts.push_back(k + "=" + value);
  }
  return join(parts, ", ");
}

double number(const Table& t, size_t row, const char* col) {
  return t.column(col) >= 0 ? t.get_number(row, col) : 0.0;
}
std::string text(const Table& t, size_t row, const char* col) {
  return t.column(col) >= 0 ? t.get_string(row, col) : std::string();
}

/// One layer of one system (all its repeats).
struct LayerFig {
  std::string op, shape, tile, bound;
  double time = 0, util = 0, flops = 0, hbm = 0;
  int parts = 1;  ///< layers of this system summed into the row (a fusion another system made)
};

/// One system's run of one case.
struct Run {
  std::string system;
  std::string point;  // stable id: /points/<id>
  double time = 0, util = 0, flops = 0, hbm = 0, peak = 0, tdp = 0;
  std::string bound;
  std::vector<std::string> order;  // layer names in order
  std::map<std::string, LayerFig> layers;
};

Run run_of(const PointResult& r) {
  Run out;
  out.system = assigned(r, "system");
  out.point = r.key;
  out.util = r.metrics.number("mac_utilization");
  out.flops = r.metrics.number("achieved_flops");
  out.hbm = r.metrics.number("hbm_bytes");
  out.peak = r.metrics.number("peak_flops");
  out.tdp = r.metrics.number("tdp_watts");
  std::map<std::string, double> by_bound;
  const Table& t = r.layers;
  for (size_t i = 0; i < t.rows().size(); ++i) {
    LayerFig f{text(t, i, "op"),
               text(t, i, "shape"),
               text(t, i, "tile"),
               text(t, i, "bound"),
               number(t, i, "time"),
               number(t, i, "mac_utilization"),
               number(t, i, "achieved_flops"),
               number(t, i, "hbm_bytes")};
    const std::string name = text(t, i, "layer");
    out.order.push_back(name);
    by_bound[f.bound] += f.time;
    out.time += f.time;
    out.layers[name] = f;
  }
  const double metric_time = r.metrics.number("time");
  if (metric_time > 0) out.time = metric_time;
  double best = -1, sum = 0;
  for (const auto& [b, s] : by_bound) sum += s;
  for (const auto& [b, s] : by_bound)
    if (s > best) {
      best = s;
      out.bound = fmt::format("{} {:.0f}%", b.empty() ? "?" : b, sum > 0 ? 100 * s / sum : 0);
    }
  return out;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

std::vector<std::string> split_plus(const std::string& name) {
  std::vector<std::string> out(1);
  for (char c : name) {
    if (c == '+')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

/// Where another system fused layers into one ("out_proj+attn_residual"), this run's separate
/// layers are summed into a row of that name, so every system has the same rows.
void regroup(Run& r, const std::vector<std::string>& fused) {
  for (const auto& f : fused) {
    if (r.layers.count(f)) continue;
    const auto parts = split_plus(f);
    if (!std::all_of(parts.begin(), parts.end(), [&](const auto& p) { return r.layers.count(p); }))
      continue;
    LayerFig sum;
    double macs_time = 0, longest = -1;
    std::vector<std::string> ops;
    for (const auto& p : parts) {
      const LayerFig& l = r.layers[p];
      sum.time += l.time;
      sum.hbm += l.hbm;
      sum.flops += l.flops * l.time;  // FLOPs, divided by the time below
      macs_time += l.util * l.time;
      ops.push_back(l.op);
      if (l.time > longest) {
        longest = l.time;
        sum.bound = l.bound;
        sum.shape = l.shape;
        sum.tile = l.tile;
      }
    }
    sum.flops = ratio(sum.flops, sum.time);
    sum.util = ratio(macs_time, sum.time);
    sum.op = join(ops, "+");
    sum.parts = static_cast<int>(parts.size());
    const auto at = std::find(r.order.begin(), r.order.end(), parts.front());
    const auto pos = at - r.order.begin();
    for (const auto& p : parts) {
      r.layers.erase(p);
      r.order.erase(std::remove(r.order.begin(), r.order.end(), p), r.order.end());
    }
    r.order.insert(r.order.begin() + std::min<std::ptrdiff_t>(pos, r.order.size()), f);
    r.layers[f] = sum;
  }
}

/// Why a layer maps differently on `x` than on the reference `ref` (empty when nothing stands
/// out): a fusion one made and the other did not, a different bounding resource, a 2x
/// difference in HBM bytes or in the share of peak.
std::string why(const LayerFig& x, const LayerFig& ref, const std::string& ref_name) {
  std::vector<std::string> parts;
  if (x.parts > 1 && ref.parts == 1)
    parts.push_back(fmt::format("{} kernels here, one fused layer on {}", x.parts, ref_name));
  if (ref.parts > 1 && x.parts == 1)
    parts.push_back(fmt::format("one fused layer here, {} on {}", ref.parts, ref_name));
  if (!x.bound.empty() && !ref.bound.empty() && x.bound != ref.bound)
    parts.push_back(fmt::format("{}-bound ({} {})", x.bound, ref_name, ref.bound));
  const double bytes = ratio(x.hbm, ref.hbm);
  if (bytes >= 2 || (bytes > 0 && bytes <= 0.5))
    parts.push_back(fmt::format("{:.2g}x the HBM bytes", bytes));
  const double util = ratio(x.util, ref.util);
  if (ref.util > 0.05 && x.util > 0 && (util >= 2 || util <= 0.5))
    parts.push_back(
        fmt::format("{:.0f}% of peak ({} {:.0f}%)", 100 * x.util, ref_name, 100 * ref.util));
  return join(parts, "; ");
}

Record network_row(const std::string& c, const Run& r, const Run& ref) {
  const double per_peak = ratio(ratio(r.flops, r.peak), ratio(ref.flops, ref.peak));
  const double per_watt =
      r.tdp > 0 && ref.tdp > 0 ? ratio(r.flops / r.tdp, ref.flops / ref.tdp) : 0.0;
  Record row;
  row.s("case", "the swept values other than the system", c)
      .s("system", "system name (systems: in the experiment)", r.system)
      .s("point_id", "design point id (/points/<id>)", r.point)
      .f("time", "s", "simulated time of the whole workload", r.time)
      .f("speedup", "", "reference system's time / this time (per chip)", ratio(ref.time, r.time))
      .f("mac_utilization", "", "useful MACs / peak MACs over the run", r.util)
      .f("achieved_flops", "FLOP/s", "2 x useful MACs / simulated time", r.flops)
      .i("hbm_bytes", "B", "bytes moved to and from HBM", static_cast<std::int64_t>(r.hbm))
      .f("peak_flops", "FLOP/s", "the system's dense bf16 peak", r.peak)
      .f("tdp_watts", "W", "the system's power limit (0: unpublished)", r.tdp)
      .f("per_peak_ratio", "",
         "(achieved / peak FLOP/s) over the reference's: speedup normalised per peak FLOP/s",
         per_peak)
      .f("per_watt_ratio", "",
         "(achieved FLOP/s per watt of TDP) over the reference's; 0 when a TDP is unpublished",
         per_watt)
      .s("bound", "the roofline bound of most of the time, and its share", r.bound);
  return row;
}

Record layer_row(const std::string& c, const std::string& name, const Run& r, const Run& ref) {
  const auto it = r.layers.find(name);
  const auto rt = ref.layers.find(name);
  const LayerFig f = it != r.layers.end() ? it->second : LayerFig{};
  std::string note;
  if (it == r.layers.end())
    note = "not a layer of its own here (fused into another)";
  else if (rt == ref.layers.end())
    note = "not a layer of its own on " + ref.system + " (fused into another)";
  else if (&r != &ref)
    note = why(f, rt->second, ref.system);
  const double ref_time = rt != ref.layers.end() ? rt->second.time : 0;
  Record row;
  row.s("case", "the swept values other than the system", c)
      .s("layer", "layer name", name)
      .s("system", "system name", r.system)
      .s("op", "operation", f.op)
      .s("shape", "layer shape", f.shape)
      .s("tile", "the mapping this system chose", f.tile)
      .f("time", "s", "simulated time of the layer (all repeats)", f.time)
      .f("time_share", "", "share of the system's whole-workload time", ratio(f.time, r.time))
      .f("speedup", "", "reference system's layer time / this time", ratio(ref_time, f.time))
      .f("mac_utilization", "", "useful MACs / peak MACs", f.util)
      .f("achieved_flops", "FLOP/s", "2 x useful MACs / simulated time", f.flops)
      .i("hbm_bytes", "B", "bytes moved to and from HBM", static_cast<std::int64_t>(f.hbm))
      .s("bound", "the layer's roofline bound", f.bound)
      .s("note", "why this layer maps differently from the reference system", note);
  return row;
}

}  // namespace

Comparison compare_systems(const std::vector<PointResult>& results,
                           const std::vector<std::string>& systems) {
  // A case is the values of the paths every system is swept along (the workload, mostly);
  // a path only some systems have (a TPU's MXU rows) makes variants of that system.
  std::map<std::string, std::set<std::string>> paths_of;  // system -> its swept paths
  for (const auto& r : results)
    for (const auto& [k, v] : r.assignments) paths_of[assigned(r, "system")].insert(k);
  std::set<std::string> common;
  bool first = true;
  for (const auto& [sys, paths] : paths_of) {
    if (sys.empty()) continue;
    if (first) common = paths;
    std::set<std::string> both;
    for (const auto& p : common)
      if (paths.count(p)) both.insert(p);
    common = both;
    first = false;
  }
  std::vector<std::string> cases;
  std::map<std::string, std::vector<Run>> runs;  // case -> runs (any order)
  for (const auto& r : results) {
    if (!r.ok() || assigned(r, "system").empty()) continue;
    std::string c = assignments_text(r, common, true);
    if (c.empty()) c = "base";
    if (!runs.count(c)) cases.push_back(c);
    Run run = run_of(r);
    const std::string variant = assignments_text(r, common, false);
    if (!variant.empty()) run.system += " [" + variant + "]";
    runs[c].push_back(std::move(run));
  }
  Comparison out;
  for (const auto& c : cases) {
    std::vector<std::string> fused;  // layer names that some system fused
    for (const auto& r : runs[c])
      for (const auto& n : r.order)
        if (n.find('+') != std::string::npos &&
            std::find(fused.begin(), fused.end(), n) == fused.end())
          fused.push_back(n);
    for (auto& r : runs[c]) regroup(r, fused);
    std::vector<const Run*> order;  // by system in experiment order, then by point
    for (const auto& s : systems)
      for (const auto& r : runs[c])
        if (r.system == s || r.system.rfind(s + " [", 0) == 0) order.push_back(&r);
    if (order.size() < 2) continue;
    const Run& ref = *order.front();
    std::vector<std::string> names = ref.order;
    for (const Run* r : order)
      for (const auto& n : r->order)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    for (const Run* r : order) out.networks.append(network_row(c, *r, ref));
    for (const auto& n : names)
      for (const Run* r : order) out.layers.append(layer_row(c, n, *r, ref));
  }
  return out;
}

std::string comparison_summary(const Comparison& c) {
  const Table& n = c.networks;
  const Table& l = c.layers;
  std::string out;
  std::string current;
  for (size_t i = 0; i < n.rows().size(); ++i) {
    const std::string cs = n.get_string(i, "case");
    if (cs == current) continue;
    current = cs;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> systems;
    for (size_t j = i; j < n.rows().size() && n.get_string(j, "case") == cs; ++j) {
      systems.push_back(n.get_string(j, "system"));
      const double pw = n.get_number(j, "per_watt_ratio");
      rows.push_back(
          {n.get_string(j, "system"), format_quantity(n.get_number(j, "time"), Dimension::kTime),
           fmt::format("{:.2f}x", n.get_number(j, "speedup")),
           fmt::format("{:.3f}", n.get_number(j, "mac_utilization")),
           fmt::format("{:.1f}", n.get_number(j, "achieved_flops") / 1e12),
           format_quantity(n.get_number(j, "hbm_bytes"), Dimension::kBytes),
           fmt::format("{:.2f}x", n.get_number(j, "per_peak_ratio")),
           pw > 0 ? fmt::format("{:.2f}x", pw) : std::string("-"), n.get_string(j, "bound")});
    }
    out += fmt::format("\ncomparison: {} (ratios against {})\n", cs, systems.front());
    out += format_table({"system", "time", "speedup", "MAC util", "TFLOP/s", "HBM traffic",
                         "per peak", "per watt", "bound"},
                        rows);
    out += "\n";
    // Layers: one row per layer, a time column per system, the notes of the others.
    std::vector<std::vector<std::string>> lrows;
    std::vector<std::string> header{"layer"};
    for (const auto& s : systems) header.push_back(s);
    header.push_back("why (against " + systems.front() + ")");
    for (size_t j = 0; j < l.rows().size();) {
      if (l.get_string(j, "case") != cs) {
        ++j;
        continue;
      }
      std::vector<std::string> row{l.get_string(j, "layer")};
      std::vector<std::string> notes;
      for (size_t k = 0; k < systems.size() && j < l.rows().size(); ++k, ++j) {
        const double t = l.get_number(j, "time"), sp = l.get_number(j, "speedup");
        row.push_back(t <= 0 ? std::string("-")
                      : k == 0 || sp <= 0
                          ? format_quantity(t, Dimension::kTime)
                          : fmt::format("{} ({:.2f}x)", format_quantity(t, Dimension::kTime), sp));
        const std::string note = l.get_string(j, "note");
        if (!note.empty()) notes.push_back(systems[k] + ": " + note);
      }
      row.push_back(join(notes, " | "));
      lrows.push_back(std::move(row));
    }
    out += format_table(header, lrows);
  }
  return out;
}

}  // namespace systole::stats
