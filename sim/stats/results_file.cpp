#include "sim/stats/results_file.h"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <new>
#include <set>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "sim/core/error.h"
#include "sim/core/output_path.h"
#include "sim/core/units.h"
#include "sim/stats/hdf5_io.h"

namespace systole::stats {
namespace {

using namespace h5;

// ---- /sweep ----------------------------------------------------------------------------------

struct SweepRow {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> assignments;
  std::string status, error;
  double wall_seconds = 0;
  Record metrics;
};

bool parse_int(const std::string& s, std::int64_t& v) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  v = x;
  return true;
}

const std::string* find_value(const SweepRow& row, const std::string& path) {
  for (const auto& [k, v] : row.assignments)
    if (k == path) return &v;
  return nullptr;
}

Cell default_cell(ColumnType t) {
  if (t == ColumnType::kInt) return std::int64_t{0};
  if (t == ColumnType::kFloat) return 0.0;
  return std::string();
}

/// A swept column is int if every value is an integer, else float in base units if every value
/// is a quantity of one dimension, else the text as given. Points without the path are skipped.
using SweepRows = std::map<std::string, SweepRow>;  // by point key

Column swept_column(const std::string& path, const SweepRows& rows) {
  bool all_int = true, all_num = true;
  std::set<Dimension> dims;
  for (const auto& entry : rows) {
    const std::string* v = find_value(entry.second, path);
    if (v == nullptr) continue;
    std::int64_t i;
    ParsedQuantity q;
    std::string why;
    all_int = all_int && parse_int(*v, i);
    all_num = all_num && parse_quantity(*v, q, why);
    dims.insert(q.dim);
  }
  if (all_int) return {path, "", "swept parameter", ColumnType::kInt};
  if (all_num && dims.size() == 1)
    return {path, base_unit(*dims.begin()), "swept parameter, in base units", ColumnType::kFloat};
  return {path, "", "swept parameter, as given", ColumnType::kString};
}

Cell swept_cell(const Column& col, const std::string* v) {
  if (v == nullptr) return default_cell(col.type);
  if (col.type == ColumnType::kString) return *v;
  std::int64_t i = 0;
  ParsedQuantity q;
  std::string why;
  if (col.type == ColumnType::kInt) return parse_int(*v, i) ? i : 0;
  return parse_quantity(*v, q, why) ? q.value : 0.0;
}

/// The point's value of a metric column; numbers of the other numeric type are converted by
/// write_table.
Cell metric_cell(const Record& m, const Column& col) {
  for (size_t i = 0; i < m.columns().size(); ++i)
    if (m.columns()[i].name == col.name &&
        (m.columns()[i].type == ColumnType::kString) == (col.type == ColumnType::kString))
      return m.cells()[i];
  return default_cell(col.type);
}

/// The rows in grid order (index, then key: merged files of different experiments may repeat
/// an index).
std::vector<std::pair<const std::string*, const SweepRow*>> in_grid_order(const SweepRows& rows) {
  std::vector<std::pair<const std::string*, const SweepRow*>> out;
  for (const auto& [key, row] : rows) out.emplace_back(&key, &row);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second->index != b.second->index ? a.second->index < b.second->index
                                              : *a.first < *b.first;
  });
  return out;
}

Table sweep_table(const RunMeta& meta, const SweepRows& rows) {
  std::vector<std::string> paths = meta.swept_paths;
  for (const auto& entry : rows)
    for (const auto& a : entry.second.assignments)
      if (std::find(paths.begin(), paths.end(), a.first) == paths.end()) paths.push_back(a.first);

  std::vector<Column> cols{
      {"point_id", "", "stable design point id, from its swept values (/points/<id>)",
       ColumnType::kString},
      {"index", "", "position of the point in the experiment's grid (or sample)",
       ColumnType::kInt}};
  const size_t first_swept = cols.size();
  for (const auto& p : paths) cols.push_back(swept_column(p, rows));
  cols.push_back({"status", "", "ok or failed", ColumnType::kString});
  cols.push_back({"error", "", "failure message", ColumnType::kString});
  cols.push_back({"wall_seconds", "s", "wall-clock time of the point", ColumnType::kFloat});
  // Union of the metric columns in first-seen order; a name already used above is skipped.
  const size_t first_metric = cols.size();
  std::set<std::string> used;
  for (const auto& c : cols) used.insert(c.name);
  for (const auto& entry : rows)
    for (const auto& c : entry.second.metrics.columns())
      if (used.insert(c.name).second) cols.push_back(c);

  Table t("sweep", "one row per design point");
  t.set_columns(cols);
  for (const auto& [key, row] : in_grid_order(rows)) {
    std::vector<Cell> cells{*key, std::int64_t{row->index}};
    for (size_t p = 0; p < paths.size(); ++p)
      cells.push_back(swept_cell(cols[p + first_swept], find_value(*row, paths[p])));
    cells.emplace_back(row->status);
    cells.emplace_back(row->error);
    cells.emplace_back(row->wall_seconds);
    for (size_t c = first_metric; c < cols.size(); ++c)
      cells.push_back(metric_cell(row->metrics, cols[c]));
    t.add_row(std::move(cells));
  }
  return t;
}

// ---- reading ---------------------------------------------------------------------------------

template <class F>
auto reading(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const H5Failure& e) {
    throw ConfigError({path}, "", std::string("cannot read results file: ") + e.what());
  } catch (const std::length_error&) {
    // A corrupt dataspace can claim more elements than a vector may hold (found by fuzzing).
    throw ConfigError({path}, "", "cannot read results file: a dataset's size is corrupt");
  } catch (const std::bad_alloc&) {
    throw ConfigError({path}, "", "cannot read results file: a dataset's size is corrupt");
  }
}

Hid open_results(const std::string& path) {
  quiet_hdf5();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw ConfigError({path}, "", "results file does not exist");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw ConfigError({path}, "", "not an HDF5 file");
  Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file.valid()) throw ConfigError({path}, "", "cannot open results file: " + h5_message());
  if (!reading(path, [&] { return has(file, "meta"); }))
    throw ConfigError({path}, "", "not a Systole results file (no /meta group)");
  return file;
}

/// A point group's attributes. Files written before points had stable ids name the group by
/// its index and have no `index` attribute.
PointInfo read_info(hid_t g, const std::string& name, Depth depth = Depth::kValues) {
  PointInfo info;
  info.key = name;
  std::int64_t legacy = 0;
  const htri_t has_index = H5Aexists(g, "index");
  if (has_index < 0) throw H5Failure("point group /points/" + name + ": looking up its index");
  if (has_index > 0)
    info.index = static_cast<int>(read_attr_num<std::uint64_t>(g, "index", H5T_NATIVE_UINT64));
  else if (parse_int(name, legacy))
    info.index = static_cast<int>(legacy);
  else
    throw H5Failure("point group /points/" + name + " has no index attribute");
  info.status = read_attr_str(g, "status", "ok", depth);
  info.error = read_attr_str(g, "error", "", depth);
  info.label = read_attr_str(g, "label", "", depth);
  info.config_hash = read_attr_str(g, "config_hash", "", depth);
  info.code_version = read_attr_str(g, "code_version", "", depth);
  return info;
}

std::vector<std::pair<std::string, std::string>> read_assignments(hid_t g,
                                                                  Depth depth = Depth::kValues) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!has(g, "assignments")) return out;
  const Table a = read_table(g, "assignments", depth);
  const int p = a.column("path"), v = a.column("value");
  if (p < 0 || v < 0) throw H5Failure("assignments table lacks path/value columns");
  for (const int c : {p, v})
    if (a.columns()[static_cast<size_t>(c)].type != ColumnType::kString)
      throw H5Failure("assignments table's path/value columns are not strings");
  for (const auto& row : a.rows())
    out.emplace_back(std::get<std::string>(row[static_cast<size_t>(p)]),
                     std::get<std::string>(row[static_cast<size_t>(v)]));
  return out;
}

/// What a point group holds (write_point). Its links are listed and each must be one of these:
/// a corrupted link name (found by merge_corrupt.sh: one bit of a symbol table entry turned
/// "metrics" into "ics") also breaks the look-up of its neighbours by name, and the point would
/// read with tables silently missing.
void check_point_links(hid_t g) {
  static const std::set<std::string> known{"assignments", "metrics", "layers", "units", "trace"};
  for (const auto& link : list_links(g)) {
    if (!known.count(link))
      throw H5Failure(fmt::format("unexpected object '{}' in the point's group", link));
    if (!has(g, link))
      throw H5Failure(
          fmt::format("'{}' is listed in the point's group but not found by its name", link));
  }
}

PointResult read_point_unnamed(hid_t points, hid_t config, const std::string& name, Depth depth) {
  PointResult r;
  Hid g = open_group(points, name);
  check_point_links(g);
  const PointInfo info = read_info(g, name, depth);
  r.id = info.index;
  r.key = info.key;
  r.config_hash = info.config_hash;
  r.code_version = info.code_version;
  r.status = info.status;
  r.error = info.error;
  r.label = info.label;
  r.wall_seconds = read_attr_num<double>(g, "wall_seconds", H5T_NATIVE_DOUBLE);
  r.assignments = read_assignments(g, depth);
  if (has(g, "metrics")) r.metrics = to_record(read_table(g, "metrics", depth));
  // The writer stores /config/<name> before the point's group: a file with /config but not the
  // point's entry is damaged, and a reader would take an empty configuration for the point's
  // (compare, merge). (A file with no /config at all is a hand-made or pre-release one.)
  if (config >= 0) {
    if (!has(config, name))
      throw H5Failure(fmt::format("no /config/{} (the point's resolved configuration)", name));
    const auto text = read_text(config, name, depth);
    if (!text.empty()) r.config_yaml = text.front();
  }
  if (has(g, "layers")) r.layers = read_table(g, "layers", depth);
  if (has(g, "units")) {
    Hid units = open_group(g, "units");
    for (const auto& t : list_links(units)) r.units.push_back(read_table(units, t, depth));
  }
  if (has(g, "trace")) r.trace = read_trace(g);
  return r;
}

/// Point `name`, read or (Depth::kStructure) only checked; an error names the point.
PointResult read_point(hid_t points, hid_t config, const std::string& name,
                       Depth depth = Depth::kValues) {
  try {
    return read_point_unnamed(points, config, name, depth);
  } catch (const H5Failure& e) {
    throw H5Failure(fmt::format("point {}: {}", name, e.what()));
  }
}

}  // namespace

// ---- writer ----------------------------------------------------------------------------------

namespace {

/// What joins shard files: the code, the experiment, which shard this is.
void write_identity(hid_t meta_group, const RunMeta& meta) {
  attr_str(meta_group, "code_version", meta.code_version);
  attr_str(meta_group, "experiment_id", meta.experiment_id);
  attr_u64(meta_group, "shard_index", static_cast<std::uint64_t>(meta.shard_index));
  attr_u64(meta_group, "shard_count", static_cast<std::uint64_t>(meta.shard_count));
  attr_u64(meta_group, "points_total", meta.points_total);
  if (!meta.merged_from.empty())
    write_text(meta_group, "merged_from", meta.merged_from, false,
               "the results files simrun merge joined into this one");
}

void read_identity(hid_t g, RunMeta& m) {
  m.code_version = read_attr_str(g, "code_version");
  m.experiment_id = read_attr_str(g, "experiment_id");
  m.shard_index =
      static_cast<int>(read_attr_num<std::uint64_t>(g, "shard_index", H5T_NATIVE_UINT64));
  m.shard_count = std::max(
      1, static_cast<int>(read_attr_num<std::uint64_t>(g, "shard_count", H5T_NATIVE_UINT64)));
  m.points_total = read_attr_num<std::uint64_t>(g, "points_total", H5T_NATIVE_UINT64);
  if (has(g, "merged_from")) m.merged_from = read_text(g, "merged_from");
}

/// Replaces any earlier /points/<key> and /config/<key> (--resume re-runs failed points).
/// `written` holds the keys this writer wrote (the file was created empty): others need no
/// look-up in the file.
void unlink_point(hid_t points, hid_t config, const std::string& key,
                  std::unordered_set<std::string>& written) {
  if (written.insert(key).second) return;
  if (has(points, key)) check(H5Ldelete(points, key.c_str(), H5P_DEFAULT), "replacing");
  if (has(config, key)) check(H5Ldelete(config, key.c_str(), H5P_DEFAULT), "replacing");
}

}  // namespace

struct ResultsWriter::Impl {
  Hid file, points, config;
  RunMeta meta;
  SweepRows rows;
  std::unordered_set<std::string> written;  // point keys in the file
  bool finished = false;                    // committed or discarded

  void close() {
    points.reset();
    config.reset();
    const hid_t f = file.release();
    if (f >= 0) check(H5Fclose(f), "closing the file");
  }
};

ResultsWriter::ResultsWriter(const std::string& path, const RunMeta& meta)
    : impl_(std::make_unique<Impl>()), path_(path), partial_(path + ".partial") {
  quiet_hdf5();
  impl_->meta = meta;
  std::remove(partial_.c_str());  // a stale partial file from an earlier run, if any
  try {
    Hid fapl = own(H5Pcreate(H5P_FILE_ACCESS), "file access list");
    check(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "file access list");
    // A closed object's metadata leaves the cache: each point's flush walks only what is open
    // (the cache of every point written so far made H5Fflush ~7% of a small sweep's CPU).
    check(H5Pset_evict_on_close(fapl, 1), "file access list");
    // HDF5 1.8's format (any libhdf5 from 1.8 reads it): every piece of metadata carries a
    // checksum (superblock v2, object headers v2 holding the attributes and compact data, the
    // dense group and attribute storage) but a chunked dataset's index, which the readers check
    // (h5::check_chunks), and a larger dataset's data its Fletcher-32 (h5::small_layout). A
    // damaged file fails a check when read instead of being decoded (libhdf5 1.10.8 crashed on
    // damaged object headers) or read as other values. Not 1.10's format: its superblock v3
    // marks a file open for writing, and a killed run's file would not open for --resume.
    check(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "file access list");
    impl_->file = Hid(H5Fcreate(partial_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    if (!impl_->file.valid()) throw H5Failure(h5_message());
  } catch (const H5Failure& e) {
    throw SimError(fmt::format("cannot create results file '{}': {}", partial_, e.what()));
  }
  try {
    Hid g = create_group(impl_->file, "meta");
    attr_str(g, "version", meta.version);
    attr_str(g, "git_revision", meta.git_revision);
    write_identity(g, meta);
    attr_str(g, "command_line", meta.command_line);
    attr_str(g, "start_time", meta.start_time);
    attr_str(g, "experiment_file", meta.experiment_file);
    attr_str(g, "experiment_name", meta.experiment_name);
    attr_u64(g, "seed", meta.seed);
    write_text(g, "experiment", {meta.experiment_yaml}, true,
               "resolved experiment (bases merged, overrides applied)");
    write_text(g, "swept_paths", meta.swept_paths, false,
               "swept parameter paths, in /sweep column order");
    if (!meta.resolved_files.empty())
      write_text(g, "resolved_files", meta.resolved_files, false,
                 "each file name the experiment gave (where) and the file it resolved to");
    impl_->config = create_group(impl_->file, "config");
    impl_->points = create_group(impl_->file, "points");
    check(H5Fflush(impl_->file, H5F_SCOPE_GLOBAL), "flushing");
  } catch (const H5Failure& e) {
    discard();
    throw SimError(fmt::format("cannot write /meta to results file '{}': {}", partial_, e.what()));
  }
}

ResultsWriter::~ResultsWriter() {
  if (impl_ && !impl_->finished) {
    try {
      impl_->close();
    } catch (...) {
      // Nothing useful to do in a destructor; the partial file stays for --resume.
    }
  }
}

void ResultsWriter::write_point(const PointResult& r) {
  if (impl_->finished) throw SimError(fmt::format("results file '{}' is already closed", partial_));
  if (r.key.empty() || r.key.find('/') != std::string::npos || r.key == ".")
    throw SimError(fmt::format("design point {} has no usable id ('{}')", r.id, r.key));
  const std::string& id = r.key;
  Impl& im = *impl_;
  try {
    unlink_point(im.points, im.config, id, im.written);
    write_text(im.config, id, {r.config_yaml}, true, "resolved configuration of point " + id);
    Hid g = create_group(im.points, id);
    attr_u64(g, "index", static_cast<std::uint64_t>(std::max(0, r.id)));
    attr_str(g, "config_hash", r.config_hash);
    attr_str(g, "code_version", r.code_version);
    attr_str(g, "status", r.status);
    attr_str(g, "error", r.error);
    attr_str(g, "label", r.label);
    attr_f64(g, "wall_seconds", r.wall_seconds);

    Table assignments("assignments", "swept parameter values of this point, as given");
    assignments.set_columns({{"path", "", "swept parameter path", ColumnType::kString},
                             {"value", "", "value as given", ColumnType::kString}});
    for (const auto& [k, v] : r.assignments) assignments.add_row({k, v});
    write_table(g, "assignments", assignments);
    if (!r.metrics.columns().empty()) {
      Table metrics("metrics", "key metrics of this point (also in /sweep)");
      metrics.append(r.metrics);
      write_table(g, "metrics", metrics);
    }
    write_table(g, "layers", r.layers);
    if (!r.units.empty()) {
      Hid units = create_group(g, "units", true);
      for (const auto& t : r.units) write_table(units, t.name(), t);
    }
    if (r.trace.enabled) write_trace(g, r.trace);
    check(H5Fflush(im.file, H5F_SCOPE_GLOBAL), "flushing");
  } catch (const H5Failure& e) {
    // Never leave a half-written point behind for --resume to trust.
    H5Ldelete(im.points, id.c_str(), H5P_DEFAULT);
    H5Ldelete(im.config, id.c_str(), H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    im.rows.erase(r.key);
    throw SimError(
        fmt::format("cannot write point {} to results file '{}': {}", id, partial_, e.what()));
  }
  im.rows[r.key] = SweepRow{r.id, r.assignments, r.status, r.error, r.wall_seconds, r.metrics};
}

void ResultsWriter::copy_points(const std::string& from, const std::vector<std::string>& keys,
                                bool sweep_rows) {
  if (impl_->finished) throw SimError(fmt::format("results file '{}' is already closed", partial_));
  Impl& im = *impl_;
  Hid src = open_results(from);
  std::string key;
  try {
    Hid points = open_group(src, "points");
    Hid config = has(src, "config") ? open_group(src, "config") : Hid();
    for (const auto& k : keys) {
      key = k;
      unlink_point(im.points, im.config, k, im.written);
      check(H5Ocopy(points, k.c_str(), im.points, k.c_str(), H5P_DEFAULT, H5P_DEFAULT),
            "copying /points/" + k);
      if (config.valid() && has(config, k))
        check(H5Ocopy(config, k.c_str(), im.config, k.c_str(), H5P_DEFAULT, H5P_DEFAULT),
              "copying /config/" + k);
      if (!sweep_rows) continue;
      Hid g = open_group(im.points, k);
      const PointInfo info = read_info(g, k);
      SweepRow row{info.index,
                   read_assignments(g),
                   info.status,
                   info.error,
                   read_attr_num<double>(g, "wall_seconds", H5T_NATIVE_DOUBLE),
                   Record()};
      if (has(g, "metrics")) row.metrics = to_record(read_table(g, "metrics"));
      im.rows[k] = std::move(row);
    }
  } catch (const H5Failure& e) {
    // The output was writable a moment ago (/meta went in): a failing copy is a damaged input.
    throw ConfigError(
        {from}, "",
        fmt::format("the results file is corrupted: cannot copy its point {} ({})", key, e.what()));
  }
}

void ResultsWriter::commit(const std::vector<Table>& compare, const Table* sweep, bool publish) {
  if (impl_->finished) throw SimError(fmt::format("results file '{}' is already closed", partial_));
  try {
    write_table(impl_->file, "sweep", sweep ? *sweep : sweep_table(impl_->meta, impl_->rows));
    if (!compare.empty()) {
      if (has(impl_->file, "compare"))
        check(H5Ldelete(impl_->file, "compare", H5P_DEFAULT), "replacing");
      Hid g = create_group(impl_->file, "compare");
      for (const auto& t : compare) write_table(g, t.name(), t);
    }
    impl_->finished = true;
    impl_->close();
  } catch (const H5Failure& e) {
    throw SimError(fmt::format("cannot finish results file '{}': {}", partial_, e.what()));
  }
  if (publish) publish_results(path_);
}

void publish_results(const std::string& path) {
  const std::string partial = path + ".partial";
  const std::string blocker = replace_blocker(path);
  if (!blocker.empty())
    throw SimError(fmt::format("not replacing '{}': it is {} (the results are in '{}')", path,
                               blocker, partial));
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    throw SimError(
        fmt::format("cannot rename '{}' to '{}': {}", partial, path, std::strerror(errno)));
}

void ResultsWriter::discard() {
  if (impl_->finished) return;
  impl_->finished = true;
  try {
    impl_->close();
  } catch (const H5Failure&) {
    // The file is deleted anyway.
  }
  std::remove(partial_.c_str());
}

// ---- readers ---------------------------------------------------------------------------------

namespace {

/// Every /points/<name> of a results file, read by `read_one(points, config, name)`, in grid
/// order: by index, then key (`order` gives both).
template <class T, class ReadOne, class Order>
std::vector<T> read_each_point(const std::string& path, ReadOne read_one, Order order) {
  Hid file = open_results(path);
  return reading(path, [&] {
    std::vector<T> out;
    if (!has(file, "points")) return out;
    Hid points = open_group(file, "points");
    Hid config = has(file, "config") ? open_group(file, "config") : Hid();
    for (const auto& name : list_links(points)) out.push_back(read_one(points, config, name));
    std::sort(out.begin(), out.end(), [&](const T& a, const T& b) { return order(a) < order(b); });
    return out;
  });
}

}  // namespace

std::vector<PointResult> read_points(const std::string& path) {
  return read_each_point<PointResult>(
      path,
      [](hid_t points, hid_t config, const std::string& name) {
        return read_point(points, config, name);
      },
      [](const PointResult& r) { return std::make_pair(r.id, std::cref(r.key)); });
}

std::vector<PointInfo> read_point_index(const std::string& path) {
  return read_each_point<PointInfo>(
      path,
      [](hid_t points, hid_t, const std::string& name) {
        Hid g = open_group(points, name);
        return read_info(g, name);
      },
      [](const PointInfo& p) { return std::make_pair(p.index, std::cref(p.key)); });
}

void check_points(const std::string& path,
                  const std::function<void(const std::string&)>& on_point) {
  Hid file = open_results(path);
  reading(path, [&] {
    if (!has(file, "points")) return;
    Hid points = open_group(file, "points");
    Hid config = has(file, "config") ? open_group(file, "config") : Hid();
    for (const auto& name : list_links(points)) {
      if (on_point) on_point(name);
      (void)read_point(points, config, name, Depth::kStructure);
    }
  });
}

RunMeta read_meta(const std::string& path) {
  Hid file = open_results(path);
  return reading(path, [&] {
    RunMeta m;
    Hid g = open_group(file, "meta");
    m.version = read_attr_str(g, "version");
    m.git_revision = read_attr_str(g, "git_revision");
    m.command_line = read_attr_str(g, "command_line");
    m.start_time = read_attr_str(g, "start_time");
    m.experiment_file = read_attr_str(g, "experiment_file");
    m.experiment_name = read_attr_str(g, "experiment_name");
    m.seed = read_attr_num<std::uint64_t>(g, "seed", H5T_NATIVE_UINT64);
    read_identity(g, m);
    if (has(g, "experiment")) {
      const auto text = read_text(g, "experiment");
      if (!text.empty()) m.experiment_yaml = text.front();
    }
    if (has(g, "swept_paths")) m.swept_paths = read_text(g, "swept_paths");
    if (has(g, "resolved_files")) m.resolved_files = read_text(g, "resolved_files");
    return m;
  });
}

bool has_sweep(const std::string& path) {
  Hid file = open_results(path);
  return reading(path, [&] { return has(file, "sweep"); });
}

Table read_sweep(const std::string& path) {
  Hid file = open_results(path);
  if (!has(file, "sweep"))
    throw ConfigError({path}, "", "results file has no /sweep table (the run did not finish)");
  return reading(path, [&] { return read_table(file, "sweep"); });
}

std::vector<Table> read_compare(const std::string& path) {
  Hid file = open_results(path);
  return reading(path, [&] {
    std::vector<Table> out;
    if (!has(file, "compare")) return out;
    Hid g = open_group(file, "compare");
    for (const auto& name : list_links(g)) out.push_back(read_table(g, name));
    return out;
  });
}

}  // namespace systole::stats
