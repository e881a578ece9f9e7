#include "sim/stats/stat_tables.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/stats/summary.h"

namespace systole::stats {

namespace {

Column column_of(const Stat& s) {
  const StatInfo& i = s.info();
  return {i.name, i.unit, i.description, i.type};
}

/// The stats of `g` that have a value in `scope`.
std::vector<const Stat*> stats_in(const StatGroup& g, std::size_t scope) {
  std::vector<const Stat*> out;
  for (const auto& s : g.stats())
    if (s->info().covers(scope)) out.push_back(s.get());
  return out;
}

/// A row's name: the group's instance path, or its path below its nearest ancestor of `kind`.
std::string row_name(const StatGroup& g, const std::string& kind) {
  if (!kind.empty())
    for (const StatGroup* a = g.parent(); a; a = a->parent())
      if (a->kind() == kind) return g.path_below(*a);
  return g.path();
}

/// The columns of `groups` in `scope`; every group must declare the same ones.
std::vector<const Stat*> common_stats(const std::vector<const StatGroup*>& groups,
                                      std::size_t scope, const std::string& table) {
  std::vector<const Stat*> first = stats_in(*groups.front(), scope);
  for (const StatGroup* g : groups) {
    const auto mine = stats_in(*g, scope);
    bool same = mine.size() == first.size();
    for (std::size_t i = 0; same && i < mine.size(); ++i)
      same = mine[i]->name() == first[i]->name() && mine[i]->info().type == first[i]->info().type;
    if (!same)
      throw SimError(fmt::format("table '{}': '{}' declares other stats than '{}'", table,
                                 g->path(), groups.front()->path()));
  }
  return first;
}

void add_row(Table& t, std::vector<Cell> keys, const StatGroup& g, std::size_t scope) {
  for (const Stat* s : stats_in(g, scope)) keys.push_back(s->value(scope));
  t.add_row(std::move(keys));
}

}  // namespace

Table make_table(const StatGroup& root, const TableSpec& spec,
                 const std::vector<std::string>& layer_names) {
  using Rows = TableSpec::Rows;
  Table t(spec.table, spec.description);
  const auto groups = groups_of_kind(root, spec.kind);
  if (groups.empty()) return t;
  const std::size_t scope = spec.rows == Rows::kGroups ? kRun : 0;
  std::vector<Column> cols;
  if (spec.rows == Rows::kLayersByGroups)
    cols.push_back({"layer", "", "layer name", ColumnType::kString});
  if (spec.rows != Rows::kLayers)
    cols.push_back({"name", "", spec.name_description, ColumnType::kString});
  for (const Stat* s : common_stats(groups, scope, spec.table)) cols.push_back(column_of(*s));
  t.set_columns(std::move(cols));
  const auto name = [&](const StatGroup& g) { return row_name(g, spec.name_below); };
  switch (spec.rows) {
    case Rows::kLayers:
      if (groups.size() != 1)
        throw SimError(fmt::format("table '{}' needs one group of kind '{}', the tree has {}",
                                   spec.table, spec.kind, groups.size()));
      for (std::size_t l = 0; l < layer_names.size(); ++l) add_row(t, {}, *groups.front(), l);
      break;
    case Rows::kGroups:
      for (const StatGroup* g : groups) add_row(t, {name(*g)}, *g, kRun);
      break;
    case Rows::kLayersByGroups:
      for (std::size_t l = 0; l < layer_names.size(); ++l)
        for (const StatGroup* g : groups) add_row(t, {layer_names[l], name(*g)}, *g, l);
      break;
  }
  return t;
}

Record run_record(const StatGroup& g) {
  Record r;
  for (const Stat* s : stats_in(g, kRun)) {
    const StatInfo& i = s->info();
    const Cell v = s->value(kRun);
    if (i.type == ColumnType::kInt)
      r.i(i.name, i.unit, i.description, std::get<std::int64_t>(v));
    else if (i.type == ColumnType::kFloat)
      r.f(i.name, i.unit, i.description, std::get<double>(v));
    else
      r.s(i.name, i.description, std::get<std::string>(v));
  }
  return r;
}

std::string describe_stats(const StatGroup& root, const std::vector<TableSpec>& specs) {
  struct Lister : StatVisitor {
    std::vector<std::vector<std::string>> rows;
    void stat(const StatGroup& g, const Stat& s) override {
      const StatInfo& i = s.info();
      const char* scope = i.scope == StatScope::kRunOnly     ? "run"
                          : i.scope == StatScope::kLayerOnly ? "layer"
                                                             : "run,layer";
      rows.push_back(
          {g.path() + "." + i.name, scope, i.unit.empty() ? "-" : i.unit, i.description});
    }
  } lister;
  root.accept(lister);
  std::string out = "Stats (instance path; scope: whole run and/or per workload layer):\n";
  out += format_table({"stat", "scope", "unit", "description"}, lister.rows);
  std::vector<std::vector<std::string>> tables;
  for (const auto& s : specs) {
    const auto groups = groups_of_kind(root, s.kind);
    std::string from;
    for (const StatGroup* g : groups) from += (from.empty() ? "" : ", ") + g->path();
    const char* rows = s.rows == TableSpec::Rows::kLayers   ? "layer"
                       : s.rows == TableSpec::Rows::kGroups ? "group"
                                                            : "layer x group";
    tables.push_back({s.table == "layers" ? "/points/<id>/layers" : "/points/<id>/units/" + s.table,
                      rows, from.empty() ? "-" : from, s.description});
  }
  out += "\nResults tables (one row per ...; columns: the stats of the group):\n";
  out += format_table({"dataset", "row per", "group", "description"}, tables);
  return out;
}

}  // namespace systole::stats
