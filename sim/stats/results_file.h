#pragma once
// The HDF5 results file (DESIGN.md §4):
//   /meta                 attributes: version, git_revision, code_version, command_line,
//                         start_time, seed, experiment_file, experiment_name, experiment_id,
//                         shard_index, shard_count, points_total; datasets /meta/experiment (YAML
//                         text), /meta/swept_paths, /meta/merged_from (simrun merge's inputs),
//                         /meta/resolved_files (each file name the experiment gave and the file
//                         it resolved to on the search path)
//   /config/<id>          resolved YAML of each point (string dataset)
//   /sweep                one row per point: point_id (the stable id), index (in the grid), each
//                         swept path as a column, status, error, wall seconds and the point's
//                         key metrics
//   /points/<id>          group with attributes index, status, error, label, wall_seconds,
//                         config_hash, code_version
// A point's <id> is its stable key (12 hex digits derived from its swept values, see
// sweep::point_key), so files of different shards and runs join without renumbering.
//   /points/<id>/layers   one row per layer (compound dataset)
//   /points/<id>/units/<kind>  one table per unit kind, one row per unit instance
//   /compare/networks, /compare/layers  with `systems:`: the systems side by side
//                         (sim/stats/compare.h)
//   /points/<id>/trace    optional: {begin, end, unit, kind, bytes, layer, instance, src, dst},
//                         chunked and compressed (shuffle + deflate 1), unit/kind/src/dst as
//                         HDF5 enums; attributes version (2) and clock (Hz of its cycles).
//                         Version 1 files (no version attribute, no instance/src/dst) still
//                         read, with those fields 0
// Every dataset carries `unit` and `description` attributes; for compound datasets `unit` is
// an array of strings, one per field, and `field_descriptions` another. Datasets of at most
// 16 KiB (a point's tables and config text, mostly) are stored in compact layout, inside their
// object header; readers see no difference.
// The file is written to "<path>.partial" and renamed to <path> only by commit(), so a run that
// fails or is interrupted never leaves a half-written results file.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/stats/result.h"

namespace systole::stats {

struct RunMeta {
  std::string version;
  std::string git_revision;
  std::string code_version;   // "version+git_revision": results of one code version merge
  std::string experiment_id;  // hash of the resolved experiment without `output:`
  int shard_index = 0;        // this file's shard of the sweep (sweep/shard.h)
  int shard_count = 1;
  std::uint64_t points_total = 0;        // design points of the whole experiment, all shards
  std::vector<std::string> merged_from;  // simrun merge: its input files
  std::string command_line;
  std::string start_time;  // ISO 8601 UTC
  std::uint64_t seed = 0;
  std::string experiment_file;
  std::string experiment_name;
  std::string experiment_yaml;  // the resolved experiment (bases merged, overrides applied)
  std::vector<std::string> swept_paths;     // /sweep columns, in order
  std::vector<std::string> resolved_files;  // "name (file:line:col) -> path", each file named
};

class ResultsWriter {
 public:
  /// Creates "<path>.partial" (replacing any old partial file) and writes /meta.
  ResultsWriter(const std::string& path, const RunMeta& meta);
  ~ResultsWriter();  // closes; leaves the .partial file for --resume unless commit() ran
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  /// Writes /config/<id> and /points/<id>/... and flushes, so an interrupted run keeps it.
  void write_point(const PointResult& r);
  /// Copies the points `keys` of the results file `from` unchanged (their /points and /config
  /// entries, HDF5 object copies), for simrun merge; a key already written is replaced. With
  /// `sweep_rows` false their /sweep rows are not read back (the caller gives commit() /sweep).
  void copy_points(const std::string& from, const std::vector<std::string>& keys,
                   bool sweep_rows = true);
  /// Writes /sweep (`sweep` when given, else built from all points written so far) and each of
  /// `compare` as /compare/<name>, closes and renames to the final path (with `publish` false
  /// the caller does, with publish_results).
  void commit(const std::vector<Table>& compare = {}, const Table* sweep = nullptr,
              bool publish = true);
  /// Closes and deletes the partial file.
  void discard();

  const std::string& partial_path() const { return partial_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::string partial_;
};

/// Renames the finished "<path>.partial" to `path`, only over a regular file (SimError naming
/// what is there otherwise).
void publish_results(const std::string& path);

/// Reads every point of a results file (final or .partial) back, tables and trace included,
/// in grid order.
std::vector<PointResult> read_points(const std::string& path);
/// read_points() in a child process (results_sandbox.cpp): a file so corrupted that libhdf5
/// crashes on it is a ConfigError ("the results file is corrupted ...") instead of a crash.
std::vector<PointResult> read_points_isolated(const std::string& path);
/// CPU seconds an isolated reader may spend on the results file `path`: 20 s plus 1 s per MiB
/// (results_sandbox.cpp). Only a reader stuck inside libhdf5 reaches it.
std::uint64_t read_cpu_limit_s(const std::string& path);

/// What identifies a stored point, without its tables.
struct PointInfo {
  std::string key;
  int index = 0;
  std::string status, error, label, config_hash, code_version;
  bool ok() const { return status == "ok"; }
};
/// The attributes of every point of a results file (fast: no tables read), in grid order.
std::vector<PointInfo> read_point_index(const std::string& path);
/// Checks every point of a results file as read_points reads it, its structure only (h5::Depth::
/// kStructure: attributes', tables' and config text's types, shapes and sizes, tables' columns)
/// but its trace in full (each event must name a unit): a ConfigError naming the file and the
/// point that would not read. `on_point(key)` is called before each point. simrun merge checks
/// its inputs so while it copies them (merge_run.h): H5Ocopy copies what it does not interpret.
void check_points(const std::string& path,
                  const std::function<void(const std::string& key)>& on_point = {});
/// Reads /meta attributes back.
RunMeta read_meta(const std::string& path);
/// Whether the file has a /sweep table (a .partial file has none).
bool has_sweep(const std::string& path);
/// Reads /sweep back as a table.
Table read_sweep(const std::string& path);
/// Reads the tables under /compare (none when the run compared no systems).
std::vector<Table> read_compare(const std::string& path);

}  // namespace systole::stats
