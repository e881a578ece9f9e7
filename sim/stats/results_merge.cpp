#include "sim/stats/results_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "sim/config/node.h"
#include "sim/core/error.h"
#include "sim/core/text.h"
#include "sim/stats/compare.h"
#include "sim/stats/hdf5_io.h"
#include "sim/stats/results_file.h"

namespace systole::stats {

namespace fs = std::filesystem;

namespace {

struct Input {
  std::string path;
  RunMeta meta;
  std::vector<PointInfo> points;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

/// Every input is a readable results file, named once, and none of them is the output.
std::vector<Input> open_inputs(const std::string& out, const std::vector<std::string>& paths,
                               const OnInput& on_input, std::vector<std::string>& warnings) {
  if (paths.empty())
    throw ConfigError({"<command line>"}, "merge", "no input files: simrun merge OUT.h5 IN.h5...");
  std::vector<Input> inputs;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      throw ConfigError({p}, "", fs::exists(p, ec) ? "not a regular file" : "no such file");
    for (const auto& o : {out, out + ".partial"})
      if (same_file(o, p))
        throw ConfigError({"<command line>"}, "merge",
                          fmt::format("the output '{}' is also an input ('{}'); write the merged "
                                      "file to a new name",
                                      out, p));
    const bool twice = std::any_of(inputs.begin(), inputs.end(),
                                   [&](const Input& i) { return same_file(i.path, p); });
    if (twice) {
      warnings.push_back(fmt::format("'{}' is given twice; read once", p));
      continue;
    }
    if (on_input) on_input(p);
    inputs.push_back({p, read_meta(p), read_point_index(p)});
  }
  return inputs;
}

/// Inputs of another experiment or code version than the first: an error, or with `force` a
/// warning each.
void check_identity(const std::vector<Input>& in, bool force, std::vector<std::string>& warnings) {
  const RunMeta& ref = in.front().meta;
  for (const auto& i : in) {
    std::string why;
    if (i.meta.experiment_id != ref.experiment_id)
      why =
          fmt::format("is from another experiment than '{}' (experiment id {} vs {})",
                      in.front().path, i.meta.experiment_id.empty() ? "none" : i.meta.experiment_id,
                      ref.experiment_id.empty() ? "none" : ref.experiment_id);
    else if (i.meta.code_version != ref.code_version)
      why = fmt::format("was computed by another code version than '{}' ({} vs {})",
                        in.front().path, i.meta.code_version, ref.code_version);
    if (why.empty()) continue;
    if (!force) throw ConfigError({i.path}, "", why + "; --force merges them anyway");
    warnings.push_back(fmt::format("'{}' {} (merged: --force)", i.path, why));
  }
}

struct Chosen {
  size_t input = 0;
  const PointInfo* info = nullptr;
};

/// One entry per point key. A point in several inputs with the same config is kept once (a
/// successful run before a failed one); with two different configs it is an error.
std::map<std::string, Chosen> choose(const std::vector<Input>& in, size_t& duplicates) {
  std::map<std::string, Chosen> chosen;
  std::vector<std::string> conflicts;
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& p : in[i].points) {
      auto [it, fresh] = chosen.emplace(p.key, Chosen{i, &p});
      if (fresh) continue;
      const PointInfo& had = *it->second.info;
      if (had.config_hash != p.config_hash) {
        conflicts.push_back(fmt::format("point {} ({}) has config {} in '{}' but {} in '{}'", p.key,
                                        p.label, had.config_hash, in[it->second.input].path,
                                        p.config_hash, in[i].path));
        continue;
      }
      ++duplicates;
      if (!had.ok() && p.ok()) it->second = Chosen{i, &p};
    }
  }
  if (!conflicts.empty()) {
    const size_t n = conflicts.size();
    conflicts.resize(std::min<size_t>(n, 3));
    throw ConfigError({"<command line>"}, "merge",
                      fmt::format("{} point{} differ between inputs: {}{}; merge only files of "
                                  "the same runs",
                                  n, n == 1 ? "" : "s", join(conflicts, "; "),
                                  n > 3 ? fmt::format(" (and {} more)", n - 3) : ""));
  }
  return chosen;
}

/// "indices 2, 5, 8, ... (3,334 points)" for the missing grid positions.
std::string missing_text(const std::vector<size_t>& missing) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < std::min<size_t>(missing.size(), 10); ++i)
    shown.push_back(std::to_string(missing[i]));
  return join(shown, ", ") + (missing.size() > 10 ? ", ..." : "");
}

/// The experiment's points that no input holds, and the shards of which no input was given.
void find_missing(const std::vector<Input>& in, const std::map<std::string, Chosen>& chosen,
                  MergeReport& report) {
  std::uint64_t total = 0;
  for (const auto& i : in) total = std::max(total, i.meta.points_total);
  std::vector<bool> seen(static_cast<size_t>(total), false);
  for (const auto& [key, c] : chosen)
    if (c.info->index >= 0 && static_cast<std::uint64_t>(c.info->index) < total)
      seen[static_cast<size_t>(c.info->index)] = true;
  std::vector<size_t> missing;
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) missing.push_back(i);
  report.missing = missing.size();
  if (missing.empty()) return;
  std::map<int, std::set<int>> shards;  // shard count -> indices given
  for (const auto& i : in)
    if (i.meta.shard_count > 1) shards[i.meta.shard_count].insert(i.meta.shard_index);
  std::vector<std::string> absent;
  for (const auto& [count, given] : shards)
    for (int s = 0; s < count; ++s)
      if (!given.count(s)) absent.push_back(fmt::format("{}/{}", s, count));
  report.warnings.push_back(fmt::format(
      "{} of the experiment's {} design points are in no input{}: indices {}",
      with_commas(missing.size()), with_commas(total),
      absent.empty() ? "" : " (no file of shard " + join(absent) + ")", missing_text(missing)));
}

RunMeta merged_meta(const std::vector<Input>& in, const MergeOptions& opt) {
  RunMeta m = in.front().meta;
  m.command_line = opt.command_line;
  m.shard_index = 0;
  m.shard_count = 1;
  m.merged_from.clear();
  for (const auto& i : in) {
    m.merged_from.push_back(i.path);
    m.points_total = std::max(m.points_total, i.meta.points_total);
    if (!i.meta.start_time.empty() && i.meta.start_time < m.start_time)
      m.start_time = i.meta.start_time;
    for (const auto& p : i.meta.swept_paths)
      if (std::find(m.swept_paths.begin(), m.swept_paths.end(), p) == m.swept_paths.end())
        m.swept_paths.push_back(p);
  }
  return m;
}

/// With `systems:`, the /compare tables of the merged points (those read in full); none
/// otherwise.
std::vector<Table> comparison(const RunMeta& meta, const std::vector<Input>& in,
                              const std::vector<std::vector<std::string>>& keys,
                              const OnInput& on_input) {
  if (meta.experiment_yaml.empty()) return {};
  // The merged /meta is the first input's: an error in its experiment names that file.
  const config::Node ex =
      config::parse_yaml(meta.experiment_yaml, in.front().path + ":/meta/experiment");
  const config::Node* systems = ex.is_map() ? ex.find("systems") : nullptr;
  if (systems == nullptr || !systems->is_map()) return {};
  std::vector<PointResult> results;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::set<std::string> mine(keys[i].begin(), keys[i].end());
    if (on_input) on_input(in[i].path);
    for (auto& r : read_points(in[i].path))
      if (mine.count(r.key)) results.push_back(std::move(r));
  }
  std::sort(results.begin(), results.end(),
            [](const PointResult& a, const PointResult& b) { return a.id < b.id; });
  const Comparison c = compare_systems(results, systems->keys());
  if (c.empty()) return {};
  return {c.networks, c.layers};
}

/// The merged /sweep from the inputs' own /sweep tables (one read per input instead of the
/// attributes and tables of every point): the chosen points' rows, columns united by name, in
/// grid order. None when an input has no /sweep (a .partial file) or two inputs give a column
/// different types or units; the writer then rebuilds /sweep from the copied points.
std::optional<Table> merged_sweep(const std::vector<Input>& in,
                                  const std::vector<std::vector<std::string>>& keys,
                                  const OnInput& on_input) {
  std::vector<Column> cols;
  std::map<std::string, size_t> at;
  std::vector<std::pair<Table, size_t>> tables;  // with the input it came from
  for (size_t i = 0; i < in.size(); ++i) {
    if (keys[i].empty()) continue;
    if (on_input) on_input(in[i].path);
    if (!has_sweep(in[i].path)) return std::nullopt;
    const Table t = read_sweep(in[i].path);  // a corrupt one is an error, not a missing one
    if (t.column("point_id") < 0 || t.column("index") < 0) return std::nullopt;
    for (const auto& c : t.columns()) {
      const auto it = at.find(c.name);
      if (it == at.end()) {
        at[c.name] = cols.size();
        cols.push_back(c);
      } else if (cols[it->second].type != c.type || cols[it->second].unit != c.unit) {
        return std::nullopt;
      }
    }
    tables.emplace_back(std::move(t), i);
  }
  struct Row {
    std::int64_t index;
    std::string key;
    std::vector<Cell> cells;
  };
  std::vector<Row> rows;
  for (const auto& [t, i] : tables) {
    const std::set<std::string> mine(keys[i].begin(), keys[i].end());
    const auto id = static_cast<size_t>(t.column("point_id"));
    const auto index = static_cast<size_t>(t.column("index"));
    for (const auto& r : t.rows()) {
      const std::string& key = std::get<std::string>(r[id]);
      if (!mine.count(key)) continue;
      Row row{std::get<std::int64_t>(r[index]), key, {}};
      for (const auto& c : cols)
        row.cells.push_back(c.type == ColumnType::kInt     ? Cell{std::int64_t{0}}
                            : c.type == ColumnType::kFloat ? Cell{0.0}
                                                           : Cell{std::string()});
      for (size_t c = 0; c < t.columns().size(); ++c) row.cells[at[t.columns()[c].name]] = r[c];
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.index != b.index ? a.index < b.index : a.key < b.key;
  });
  Table out("sweep",
            tables.empty() ? "one row per design point" : tables.front().first.description());
  out.set_columns(cols);
  for (auto& r : rows) out.add_row(std::move(r.cells));
  return out;
}

}  // namespace

MergeReport merge_results(const std::string& out, const std::vector<std::string>& paths,
                          const MergeOptions& opt, const OnInput& on_input) {
  const h5::FreeListLimits lists;  // see there: ~15% of the merge's CPU time
  MergeReport report;
  const auto in = open_inputs(out, paths, on_input, report.warnings);
  check_identity(in, opt.force, report.warnings);
  const auto chosen = choose(in, report.duplicates);
  const bool one_experiment = std::all_of(in.begin(), in.end(), [&](const Input& i) {
    return i.meta.experiment_id == in.front().meta.experiment_id;
  });
  if (one_experiment) find_missing(in, chosen, report);

  const RunMeta meta = merged_meta(in, opt);
  std::vector<std::vector<std::string>> keys(in.size());
  for (const auto& [key, c] : chosen) {
    keys[c.input].push_back(key);
    report.failed += !c.info->ok();
  }
  const auto compare = one_experiment ? comparison(meta, in, keys, on_input) : std::vector<Table>{};
  const std::optional<Table> sweep = merged_sweep(in, keys, on_input);
  ResultsWriter writer(out, meta);
  try {
    for (size_t i = 0; i < in.size(); ++i)
      if (!keys[i].empty()) {
        if (on_input) on_input(in[i].path);
        writer.copy_points(in[i].path, keys[i], !sweep);
      }
    if (on_input) on_input("");
    writer.commit(compare, sweep ? &*sweep : nullptr, opt.publish);
  } catch (...) {
    writer.discard();
    throw;
  }
  report.files = in.size();
  report.points = chosen.size();
  report.swept_paths = meta.swept_paths;
  return report;
}

}  // namespace systole::stats
