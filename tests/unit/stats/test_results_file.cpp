#include "sim/stats/results_file.h"
#include "tests/support/paths.h"
#include "tests/support/temp_dir.h"

#include <hdf5.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "sim/core/error.h"

namespace fs = std::filesystem;
using namespace systole::stats;

namespace {

using systole::test::TempDir;

const std::vector<std::string> kPaths = {"system.chip.mxu.rows", "system.hbm.bandwidth",
                                         "system.chip.dataflow"};

RunMeta make_meta() {
  RunMeta m;
  m.version = "0.1.0";
  m.git_revision = "abc123-dirty";
  m.command_line = "simrun run experiments/sweep.yaml -o out.h5";
  m.start_time = "2024-05-01T12:00:00Z";
  m.seed = 0xFFFFFFFFFFFFFFF0ull;
  m.experiment_file = "experiments/sweep.yaml";
  m.experiment_name = "mxu sweep";
  m.experiment_yaml = "name: mxu sweep\nsweep:\n  system.chip.mxu.rows: [128, 256]\n";
  m.swept_paths = kPaths;
  m.code_version = "0.1.0+abc123-dirty";
  m.experiment_id = "0123456789ab";
  m.shard_index = 2;
  m.shard_count = 5;
  m.points_total = 12;
  return m;
}

PointResult make_point(int id, const std::string& rows, const std::string& bw,
                       const std::string& dataflow) {
  PointResult r;
  r.id = id;
  r.key = "p" + std::to_string(id);
  r.config_hash = "c" + rows;
  r.code_version = "0.1.0+abc123-dirty";
  r.assignments = {{kPaths[0], rows}, {kPaths[1], bw}, {kPaths[2], dataflow}};
  r.label = kPaths[0] + "=" + rows + ", " + kPaths[1] + "=" + bw;
  r.wall_seconds = 1.25 + id;
  r.config_yaml = "system:\n  chip:\n    mxu: {rows: " + rows + "}\n";
  r.metrics.i("total_cycles", "cycles", "cycles of the whole workload", 123456 + id)
      .f("utilization", "%", "MAC utilization", 87.5 + id)
      .s("bound", "resource that bounds the run", id == 0 ? "compute" : "memory");

  const char* ops[] = {"conv2d", "matmul_with_a_long_name", ""};
  for (int l = 0; l < 3; ++l)
    r.layers.append(Record()
                        .i("index", "", "layer index", l)
                        .s("op", "operation", ops[l])
                        .i("cycles", "cycles", "cycles of the layer", 1000 * (l + 1) + id)
                        .f("achieved_flops", "FLOP/s", "achieved FLOP/s", 1.5e12 / (l + 1)));

  Table mxu("mxu", "one row per MXU");
  for (int u = 0; u < 2; ++u)
    mxu.append(Record()
                   .s("instance", "unit instance", "mxu" + std::to_string(u))
                   .i("busy", "cycles", "busy cycles", 500 + u)
                   .f("utilization", "", "busy fraction", 0.25 * (u + 1)));
  Table dma("dma", "one row per DMA engine");
  dma.append(Record().s("instance", "unit instance", "dma0").i("bytes", "B", "bytes moved", -7));
  r.units = {mxu, dma};  // not in name order: the order must survive

  r.trace.enabled = true;
  r.trace.units = {"mxu0", "mxu1", "dma0"};
  r.trace.kinds = {"matmul", "load"};
  std::uint64_t cycle = 0;
  for (std::uint32_t i = 0; i < 50000; ++i) {
    TraceEvent e;
    e.begin = cycle;
    e.end = cycle + 3 + i % 7;
    e.unit = i % 3;
    e.kind = static_cast<std::uint16_t>(e.unit == 2 ? 1 : 0);
    e.bytes = e.kind == 1 ? 4096 + i % 2 * 64 : 0;
    e.layer = i / 20000;
    cycle += 1 + i % 4;
    r.trace.events.push_back(e);
  }
  return r;
}

PointResult make_failed(int id) {
  PointResult r;
  r.id = id;
  r.key = "p" + std::to_string(id);
  r.status = "failed";
  r.error = "deadlock: unit mxu0 waits for dma0\n(second line)";
  r.assignments = {{kPaths[0], "512"}, {kPaths[1], "4.8TB/s"}, {kPaths[2], "ws"}};
  r.label = "failed point";
  r.wall_seconds = 0.5;
  return r;
}

void require_same(const Table& a, const Table& b) {
  INFO("table " << a.name());
  CHECK(a.name() == b.name());
  CHECK(a.description() == b.description());
  REQUIRE(a.columns().size() == b.columns().size());
  for (size_t c = 0; c < a.columns().size(); ++c) {
    INFO("column " << a.columns()[c].name);
    CHECK(a.columns()[c].name == b.columns()[c].name);
    CHECK(a.columns()[c].unit == b.columns()[c].unit);
    CHECK(a.columns()[c].description == b.columns()[c].description);
    CHECK(a.columns()[c].type == b.columns()[c].type);
  }
  REQUIRE(a.rows().size() == b.rows().size());
  for (size_t r = 0; r < a.rows().size(); ++r)
    for (size_t c = 0; c < a.columns().size(); ++c) {
      INFO("row " << r << " column " << a.columns()[c].name << ": " << format_cell(a.rows()[r][c])
                  << " vs " << format_cell(b.rows()[r][c]));
      CHECK(a.rows()[r][c] == b.rows()[r][c]);
    }
}

Table record_table(const Record& r) {
  Table t("metrics", "");
  if (!r.columns().empty()) t.append(r);
  return t;
}

void require_same(const PointResult& a, const PointResult& b) {
  INFO("point " << a.id);
  CHECK(a.id == b.id);
  CHECK(a.key == b.key);
  CHECK(a.config_hash == b.config_hash);
  CHECK(a.code_version == b.code_version);
  CHECK(a.status == b.status);
  CHECK(a.error == b.error);
  CHECK(a.label == b.label);
  CHECK(a.assignments == b.assignments);
  CHECK(a.wall_seconds == b.wall_seconds);
  CHECK(a.config_yaml == b.config_yaml);
  require_same(record_table(a.metrics), record_table(b.metrics));
  if (a.layers.columns().empty())
    CHECK(b.layers.columns().empty());
  else
    require_same(a.layers, b.layers);
  REQUIRE(a.units.size() == b.units.size());
  for (size_t u = 0; u < a.units.size(); ++u) require_same(a.units[u], b.units[u]);
  CHECK(a.trace.enabled == b.trace.enabled);
  CHECK(a.trace.units == b.trace.units);
  CHECK(a.trace.kinds == b.trace.kinds);
  REQUIRE(a.trace.events.size() == b.trace.events.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < a.trace.events.size(); ++i) {
    const TraceEvent& x = a.trace.events[i];
    const TraceEvent& y = b.trace.events[i];
    if (x.begin != y.begin || x.end != y.end || x.bytes != y.bytes || x.unit != y.unit ||
        x.layer != y.layer || x.kind != y.kind)
      ++mismatches;
  }
  CHECK(mismatches == 0);
}

std::string h5ls(const std::string& file, const std::string& out) {
  const std::string cmd = "h5ls -r '" + file + "' > '" + out + "' 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool lists(const std::string& listing, const std::string& path) {
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(path + " ", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("results file round-trips points, meta and sweep", "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("results.h5");
  const RunMeta meta = make_meta();
  const std::vector<PointResult> points = {make_point(0, "128", "1.2TB/s", "ws"),
                                           make_point(1, "256", "2.4TB/s", "os"), make_failed(2)};
  {
    ResultsWriter w(path, meta);
    CHECK(w.partial_path() == path + ".partial");
    for (const auto& p : points) w.write_point(p);
    CHECK(fs::exists(path + ".partial"));
    CHECK_FALSE(fs::exists(path));
    w.commit();
  }
  CHECK(fs::exists(path));
  CHECK_FALSE(fs::exists(path + ".partial"));

  const auto back = read_points(path);
  REQUIRE(back.size() == points.size());
  for (size_t i = 0; i < points.size(); ++i) require_same(points[i], back[i]);
  CHECK(back[0].layers.name() == "layers");
  CHECK(back[0].units[0].name() == "mxu");
  CHECK(back[0].units[1].name() == "dma");

  const RunMeta m = read_meta(path);
  CHECK(m.version == meta.version);
  CHECK(m.git_revision == meta.git_revision);
  CHECK(m.command_line == meta.command_line);
  CHECK(m.start_time == meta.start_time);
  CHECK(m.seed == meta.seed);
  CHECK(m.experiment_file == meta.experiment_file);
  CHECK(m.experiment_name == meta.experiment_name);
  CHECK(m.experiment_yaml == meta.experiment_yaml);
  CHECK(m.swept_paths == meta.swept_paths);
  CHECK(m.code_version == meta.code_version);
  CHECK(m.experiment_id == meta.experiment_id);
  CHECK(m.shard_index == 2);
  CHECK(m.shard_count == 5);
  CHECK(m.points_total == 12);
  CHECK(m.merged_from.empty());

  SECTION("sweep table") {
    const Table s = read_sweep(path);
    CHECK(s.name() == "sweep");
    CHECK(s.description() == "one row per design point");
    std::vector<std::string> names;
    for (const auto& c : s.columns()) names.push_back(c.name);
    CHECK(names == std::vector<std::string>{"point_id", "index", kPaths[0], kPaths[1], kPaths[2],
                                            "status", "error", "wall_seconds", "total_cycles",
                                            "utilization", "bound"});
    REQUIRE(s.rows().size() == 3);
    const auto& cols = s.columns();
    CHECK(cols[0].type == ColumnType::kString);
    CHECK(cols[1].type == ColumnType::kInt);
    CHECK(cols[2].type == ColumnType::kInt);
    CHECK(cols[3].type == ColumnType::kFloat);
    CHECK(cols[3].unit == "B/s");
    CHECK(cols[4].type == ColumnType::kString);
    CHECK(cols[7].unit == "s");
    CHECK(cols[8].type == ColumnType::kInt);
    CHECK(cols[8].unit == "cycles");
    CHECK(cols[8].description == "cycles of the whole workload");
    CHECK(cols[9].type == ColumnType::kFloat);
    CHECK(cols[10].type == ColumnType::kString);
    for (size_t r = 0; r < 3; ++r) {
      CHECK(s.get_string(r, "point_id") == "p" + std::to_string(r));
      CHECK(s.get_int(r, "index") == static_cast<int>(r));
    }
    CHECK(s.get_int(0, kPaths[0]) == 128);
    CHECK(s.get_int(1, kPaths[0]) == 256);
    CHECK(s.get_int(2, kPaths[0]) == 512);
    CHECK(s.get_number(0, kPaths[1]) == Approx(1.2e12));
    CHECK(s.get_number(1, kPaths[1]) == Approx(2.4e12));
    CHECK(s.get_string(0, kPaths[2]) == "ws");
    CHECK(s.get_string(1, kPaths[2]) == "os");
    CHECK(s.get_string(0, "status") == "ok");
    CHECK(s.get_string(2, "status") == "failed");
    CHECK(s.get_string(2, "error") == points[2].error);
    CHECK(s.get_number(1, "wall_seconds") == 2.25);
    CHECK(s.get_int(1, "total_cycles") == 123457);
    CHECK(s.get_number(1, "utilization") == 88.5);
    CHECK(s.get_string(0, "bound") == "compute");
    // the failed point has no metrics
    CHECK(s.get_int(2, "total_cycles") == 0);
    CHECK(s.get_number(2, "utilization") == 0.0);
    CHECK(s.get_string(2, "bound").empty());
  }

  SECTION("h5ls sees the layout") {
    const std::string listing = h5ls(path, tmp.file("h5ls.txt"));
    INFO(listing);
    for (const char* p :
         {"/meta", "/meta/experiment", "/meta/swept_paths", "/config/p0", "/sweep", "/points/p0",
          "/points/p0/layers", "/points/p0/units/mxu", "/points/p0/units/dma", "/points/p0/trace",
          "/points/p0/metrics", "/points/p0/assignments", "/points/p2"})
      CHECK(lists(listing, p));
    CHECK_FALSE(lists(listing, "/points/p2/layers"));
    CHECK_FALSE(lists(listing, "/points/p2/trace"));
  }
}

TEST_CASE("sweep column types follow the swept values", "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("sweep.h5");
  RunMeta meta;
  meta.swept_paths = {"a", "b", "c", "d", "e"};
  {
    ResultsWriter w(path, meta);
    PointResult p0, p1;
    p0.id = 0;
    p0.key = "a0";
    p1.key = "a1";
    p0.assignments = {{"a", "-3"}, {"b", "16MiB"}, {"c", "1GB"}, {"d", "1.5"}, {"e", "x"}};
    p1.id = 1;
    p1.assignments = {{"a", "7"}, {"b", "512KiB"}, {"c", "2GHz"}, {"d", "2"}};
    w.write_point(p1);
    w.write_point(p0);
    w.commit();
  }
  const Table s = read_sweep(path);
  REQUIRE(s.rows().size() == 2);
  CHECK(s.get_string(0, "point_id") == "a0");  // ordered by index, not by write order
  CHECK(s.columns()[2].type == ColumnType::kInt);
  CHECK(s.get_int(0, "a") == -3);
  CHECK(s.columns()[3].type == ColumnType::kFloat);
  CHECK(s.columns()[3].unit == "B");
  CHECK(s.get_number(0, "b") == 16777216.0);
  CHECK(s.get_number(1, "b") == 524288.0);
  CHECK(s.columns()[4].type == ColumnType::kString);  // mixed dimensions
  CHECK(s.get_string(1, "c") == "2GHz");
  CHECK(s.columns()[5].type == ColumnType::kFloat);
  CHECK(s.columns()[5].unit.empty());
  CHECK(s.columns()[6].type == ColumnType::kString);
  CHECK(s.get_string(1, "e").empty());  // missing value
}

TEST_CASE("an unfinished results file", "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("r.h5");

  SECTION("discard leaves no files") {
    ResultsWriter w(path, make_meta());
    w.write_point(make_failed(0));
    w.discard();
    CHECK(tmp.count() == 0);
  }

  SECTION("a writer destroyed without commit leaves only the partial file") {
    {
      ResultsWriter w(path, make_meta());
      w.write_point(make_point(3, "128", "1TB/s", "ws"));
    }
    CHECK(fs::exists(path + ".partial"));
    CHECK_FALSE(fs::exists(path));
    CHECK(tmp.count() == 1);
    const auto back = read_points(path + ".partial");
    REQUIRE(back.size() == 1);
    require_same(make_point(3, "128", "1TB/s", "ws"), back[0]);
    CHECK(read_meta(path + ".partial").experiment_name == "mxu sweep");
    CHECK_THROWS_AS(read_sweep(path + ".partial"), systole::ConfigError);

    // a new writer replaces the stale partial file
    ResultsWriter w(path, make_meta());
    w.commit();
    CHECK(read_points(path).empty());
  }

  SECTION("rewriting a point replaces it, and commit overwrites an old file") {
    { std::ofstream(path) << "old results"; }
    ResultsWriter w(path, make_meta());
    w.write_point(make_failed(1));
    PointResult ok = make_point(1, "256", "2TB/s", "os");
    ok.trace.events.resize(10);
    w.write_point(ok);
    w.commit();
    const auto back = read_points(path);
    REQUIRE(back.size() == 1);
    require_same(ok, back[0]);
    const Table s = read_sweep(path);
    REQUIRE(s.rows().size() == 1);
    CHECK(s.get_string(0, "status") == "ok");
  }
}

TEST_CASE("empty tables and traces are still written", "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("empty.h5");
  PointResult p;
  p.id = 0;
  p.key = "only";
  p.layers.set_columns({{"index", "", "layer index", ColumnType::kInt},
                        {"op", "", "operation", ColumnType::kString}});
  p.units.emplace_back("noc", "one row per router");
  p.units.back().set_columns({{"bytes", "B", "bytes routed", ColumnType::kFloat}});
  p.units.emplace_back("nothing", "a table without columns is skipped");
  p.trace.enabled = true;
  RunMeta meta;  // no swept paths
  {
    ResultsWriter w(path, meta);
    w.write_point(p);
    w.commit();
  }
  const auto back = read_points(path);
  REQUIRE(back.size() == 1);
  require_same(p.layers, back[0].layers);
  REQUIRE(back[0].units.size() == 1);
  require_same(p.units[0], back[0].units[0]);
  CHECK(back[0].trace.enabled);
  CHECK(back[0].trace.events.empty());
  CHECK(read_meta(path).swept_paths.empty());
  CHECK(read_sweep(path).rows().size() == 1);
}

TEST_CASE("results file errors", "[stats][hdf5]") {
  TempDir tmp;
  SECTION("a missing directory is a SimError naming the file") {
    const std::string path = tmp.file("no/such/dir/r.h5");
    CHECK_THROWS_AS(ResultsWriter(path, RunMeta{}), systole::SimError);
    CHECK_THROWS_WITH(ResultsWriter(path, RunMeta{}),
                      Catch::Contains("cannot create results file '" + path + ".partial'"));
  }
  SECTION("bad trace indices are reported, and the point is not kept") {
    const std::string path = tmp.file("r.h5");
    ResultsWriter w(path, RunMeta{});
    PointResult p = make_point(0, "1", "1B/s", "ws");
    p.trace.events[5].unit = 3;
    CHECK_THROWS_AS(w.write_point(p), systole::SimError);
    w.commit();
    CHECK(read_points(path).empty());
  }
  SECTION("duplicate trace unit names are reported") {
    ResultsWriter w(tmp.file("r.h5"), RunMeta{});
    PointResult p = make_point(0, "1", "1B/s", "ws");
    p.trace.units = {"mxu0", "mxu0", "dma0"};
    CHECK_THROWS_WITH(w.write_point(p), Catch::Contains("'mxu0' appears twice"));
  }
  SECTION("reading a missing or foreign file is a ConfigError") {
    CHECK_THROWS_AS(read_points(tmp.file("missing.h5")), systole::ConfigError);
    { std::ofstream(tmp.file("text.h5")) << "not hdf5"; }
    CHECK_THROWS_AS(read_meta(tmp.file("text.h5")), systole::ConfigError);
    CHECK_THROWS_WITH(read_points(tmp.file("text.h5")), Catch::Contains("not an HDF5 file"));
  }
}

namespace {
/// A unit table `noc` of `rows` rows of 16 B.
Table router_table(int rows) {
  Table t("noc", "one row per router");
  for (int i = 0; i < rows; ++i)
    t.append(Record().i("router", "", "router index", i).f("bytes", "B", "bytes routed", i));
  return t;
}

/// The storage layout of dataset `name` in the results file `path`.
H5D_layout_t layout_of(const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  const hid_t p = H5Dget_create_plist(d);
  const H5D_layout_t l = H5Pget_layout(p);
  H5Pclose(p);
  H5Dclose(d);
  H5Fclose(f);
  return l;
}
}  // namespace

TEST_CASE("small datasets are written compact, large ones chunked with a checksum, both read back",
          "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("layouts.h5");
  PointResult p = make_point(0, "128", "1.2TB/s", "ws");
  p.trace.enabled = false;
  p.units.push_back(router_table(2000));  // 2,000 rows of 16 B: 32,000 B, over 16 KiB
  {
    ResultsWriter w(path, make_meta());
    w.write_point(p);
    w.commit();
  }
  CHECK(layout_of(path, "/points/p0/layers") == H5D_COMPACT);
  CHECK(layout_of(path, "/points/p0/units/mxu") == H5D_COMPACT);
  CHECK(layout_of(path, "/config/p0") == H5D_COMPACT);
  CHECK(layout_of(path, "/points/p0/units/noc") == H5D_CHUNKED);
  const auto back = read_points(path);
  REQUIRE(back.size() == 1);
  require_same(p.layers, back[0].layers);
  REQUIRE(back[0].units.size() == 3);
  for (size_t u = 0; u < 3; ++u) require_same(p.units[u], back[0].units[u]);
  CHECK(back[0].config_yaml == p.config_yaml);
}

// tests/data/fuzz/results_huge_extent.h5 (87 KB, found by tools/fuzz.sh results on
// 2026-11-27): a corrupt dataspace claims more elements than a std::vector may hold, and
// std::length_error escaped read_points. Now every reader either reads it or says the file is
// unreadable, as a ConfigError (exit 2).
TEST_CASE("a results file whose dataset size is corrupt is a ConfigError", "[stats][hdf5]") {
  const std::string path = systole::test::source_dir() + "/tests/data/fuzz/results_huge_extent.h5";
  REQUIRE_THROWS_AS(read_points(path), systole::ConfigError);
  const auto clean = [](auto&& f) {
    try {
      f();
    } catch (const systole::ConfigError& e) {
      CHECK(e.exit_code() == 2);
    }
  };
  clean([&] { (void)read_meta(path); });
  clean([&] { (void)read_point_index(path); });
  clean([&] { (void)read_sweep(path); });
}

// tests/data/fuzz/results_huge_table.h5 (87 KB, tools/fuzz.sh results, 2026-11-27): /sweep's
// dataspace claims ~6.4 EB; the reader sized a buffer from it (under ASan an abort, elsewhere a
// bad_alloc or an attempt to allocate it). Now the size is checked against the file first.
TEST_CASE("a results table claiming more bytes than its file holds is a ConfigError",
          "[stats][hdf5]") {
  const std::string path = systole::test::source_dir() + "/tests/data/fuzz/results_huge_table.h5";
  try {
    (void)read_sweep(path);
    FAIL("read_sweep accepted a corrupt /sweep");
  } catch (const systole::ConfigError& e) {
    CHECK(std::string(e.what()).find("B file)") != std::string::npos);  // check_size, not bad_alloc
  }
}

// tests/data/fuzz/results_huge_strings.h5: tests/fuzz/corpus/results/two_points with the
// dataspace of /meta/swept_paths (a variable-length string dataset) patched from 1 to 2^40
// elements. read_strings sized its pointer buffer from it (8 TiB: a bad_alloc here, an ASan
// abort in the sanitize build, and a real allocation for claims of a few GiB). Now the claim
// is checked against the file first, as for tables and traces.
TEST_CASE("a string dataset claiming more bytes than its file holds is a ConfigError",
          "[stats][hdf5]") {
  const std::string path = systole::test::source_dir() + "/tests/data/fuzz/results_huge_strings.h5";
  try {
    (void)read_meta(path);
    FAIL("read_meta accepted a corrupt /meta/swept_paths");
  } catch (const systole::ConfigError& e) {
    CHECK(std::string(e.what()).find("B file)") != std::string::npos);  // check_size
  }
}

// tests/data/fuzz/results_attr_array.h5: two_points with /meta's points_total attribute
// rewritten (h5py) as two values. read_attr_num let H5Aread write both into one uint64 on the
// stack (a stack-buffer-overflow under ASan).
// A point whose /config/<id> is gone (a damaged file) was read with an empty configuration, so
// `simrun compare` showed it without its settings and merge copied it on. Found in issue 15.
TEST_CASE("a point without its /config entry is a ConfigError naming both", "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("r.h5");
  {
    ResultsWriter w(path, make_meta());
    w.write_point(make_point(0, "128", "1TB/s", "ws"));
    w.commit();
  }
  REQUIRE(read_points(path).size() == 1);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const std::string key = read_points(path).front().key;
  CHECK(H5Ldelete(f, ("/config/" + key).c_str(), H5P_DEFAULT) >= 0);
  H5Fclose(f);
  try {
    (void)read_points(path);
    FAIL("read_points accepted a point without its configuration");
  } catch (const systole::ConfigError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("no /config/" + key) != std::string::npos);
  }
  CHECK_THROWS_AS(check_points(path, {}), systole::ConfigError);
}

TEST_CASE("a numeric attribute holding several values is a ConfigError", "[stats][hdf5]") {
  const std::string path = systole::test::source_dir() + "/tests/data/fuzz/results_attr_array.h5";
  try {
    (void)read_meta(path);
    FAIL("read_meta accepted a points_total of two values");
  } catch (const systole::ConfigError& e) {
    CHECK(std::string(e.what()).find("2 values where one belongs") != std::string::npos);
  }
}

// tests/data/fuzz/results_trace_plain_units.h5: tests/fuzz/corpus/results/one_point_trace with
// the trace rewritten (h5py) with plain integer unit, kind and place fields, its events kept.
// read_trace returned events whose unit had no name, and systole-trace stopped on
// std::out_of_range (an internal error, exit 1). The reader now checks them as the writer does.
TEST_CASE("a trace whose events name no unit is a ConfigError", "[stats][hdf5]") {
  const std::string path =
      systole::test::source_dir() + "/tests/data/fuzz/results_trace_plain_units.h5";
  try {
    (void)read_points(path);
    FAIL("read_points accepted trace events without unit names");
  } catch (const systole::ConfigError& e) {
    CHECK(std::string(e.what()).find("trace event 0: unit 4 / kind 0 / places 1, 2 out of range "
                                     "(0 units, 0 kinds, 0 places)") != std::string::npos);
  }
}

namespace {

/// Variable-length string types among `obj`'s attributes (and, for a dataset, its type).
int vlen_strings(hid_t obj, bool dataset) {
  int n = 0;
  auto count = [&](hid_t type) {
    if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) ++n;
  };
  if (dataset) {
    const hid_t t = H5Dget_type(obj);
    count(t);
    H5Tclose(t);
  }
  H5O_info_t info;
  H5Oget_info2(obj, &info, H5O_INFO_NUM_ATTRS);
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    const hid_t a =
        H5Aopen_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t t = H5Aget_type(a);
    count(t);
    H5Tclose(t);
    H5Aclose(a);
  }
  return n;
}

herr_t visit_vlen(hid_t root, const char* name, const H5O_info_t* info, void* n) {
  const hid_t o = H5Oopen(root, name, H5P_DEFAULT);
  *static_cast<int*>(n) += vlen_strings(o, info->type == H5O_TYPE_DATASET);
  H5Oclose(o);
  return 0;
}

}  // namespace

// 158 of the 179 crashing inputs of a 30-minute `results` fuzz run (issue 15) crashed inside
// libhdf5's H5HG_read, reading the global heap that holds variable-length strings: the writer
// now stores every string fixed-length, so a file of ours has no global heap to damage.
TEST_CASE("results files hold fixed-length strings only, and older variable-length ones still read",
          "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("results.h5");
  std::vector<PointResult> points = {make_point(0, "128", "1.2TB/s", "ws"), make_failed(1)};
  points[1].error = std::string(20000, 'e');        // wider than an attribute keeps fixed-length
  points[0].config_yaml = std::string(30000, 'c');  // a text larger than a compact dataset
  {
    ResultsWriter w(path, make_meta());
    for (const auto& p : points) w.write_point(p);
    w.commit();
  }
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  int vlen = vlen_strings(f, false);
  REQUIRE(H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit_vlen, &vlen, H5O_INFO_BASIC) >= 0);
  H5Fclose(f);
  CHECK(vlen == 1);  // the 20,000-byte error attribute alone
  const auto back = read_points(path);
  REQUIRE(back.size() == 2);
  for (size_t i = 0; i < points.size(); ++i) require_same(points[i], back[i]);
  CHECK(back[1].error == points[1].error);
  CHECK(back[0].config_yaml == points[0].config_yaml);
  // A file written before (variable-length strings) still reads, trace included.
  const auto old =
      read_points(systole::test::source_dir() + "/tests/data/legacy/results_vlen_strings.h5");
  REQUIRE(old.size() == 1);
  CHECK(old[0].ok());
  CHECK(old[0].trace.enabled);
  CHECK(old[0].config_yaml.find("rows: 64") != std::string::npos);
}

namespace {

/// Everything the readers give for the results file `path`, as one string ("error" and the
/// message's kind when one of them throws a ConfigError).
std::string read_all(const std::string& path) {
  std::string out;
  try {
    for (const auto& p : read_points(path)) out += serialize(p);
    const RunMeta m = read_meta(path);
    out += m.code_version + '|' + m.experiment_id + '|' + m.command_line + '|' + m.experiment_yaml +
           '|' + std::to_string(m.points_total) + '|' + std::to_string(m.shard_index) + '/' +
           std::to_string(m.shard_count);
    for (const auto& s : m.swept_paths) out += '|' + s;
    const Table sweep = read_sweep(path);
    for (const auto& row : sweep.rows())
      for (const auto& cell : row) out += '|' + format_cell(cell, 17);
    for (const auto& i : read_point_index(path)) out += '|' + i.key + ':' + i.status;
  } catch (const systole::ConfigError&) {
    return "error";
  }
  return out;
}

}  // namespace

// Damage on disk (a flipped bit, a bad sector, a file patched by hand) must not read back as
// other values: every byte of a results file is metadata under a checksum (superblock v2,
// object headers v2 holding the attributes and compact data, dense group and attribute
// storage), data under its dataset's Fletcher-32, or a chunk index (no checksum in this format)
// that the reader checks itself; and a look-up that fails is an error, never an absent entry.
// So a changed byte either changes nothing that is read (unused space) or makes the read a
// ConfigError. Measured 2026-11-27 on these 2,000 damaged copies: 267 read as before, 1,733
// refused, none other (and none other in 30,000). Written in HDF5's earliest format (as
// before that day), 84 read as other values (732 as before); in this format without the
// reader's look-up and chunk-index checks, 76 did. Error paths are libhdf5's, so this runs in
// this process: a crash fails the test.
TEST_CASE("a results file with any byte damaged reads as before or is a ConfigError",
          "[stats][hdf5]") {
  TempDir tmp;
  const std::string path = tmp.file("clean.h5");
  PointResult p = make_point(0, "128", "1.2TB/s", "ws");
  p.trace.events.resize(300);             // a chunked, compressed trace
  p.units.push_back(router_table(1200));  // chunked with a checksum (over 16 KiB)
  {
    ResultsWriter w(path, make_meta());
    w.write_point(p);
    w.write_point(make_failed(1));
    w.commit();
  }
  const std::string clean = read_all(path);
  REQUIRE(clean != "error");
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  INFO("file of " << bytes.size() << " B");
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<size_t> at(0, bytes.size() - 1);
  std::uniform_int_distribution<int> mask(1, 255);
  const std::string damaged = tmp.file("damaged.h5");
  int same = 0, refused = 0, other = 0;
  for (int n = 0; n < 2000; ++n) {
    std::string copy = bytes;
    const size_t i = n < 64 ? static_cast<size_t>(n) : at(rng);  // the superblock, then anywhere
    copy[i] = static_cast<char>(copy[i] ^ mask(rng));
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << copy;
    const std::string got = read_all(damaged);
    if (got == "error") {
      ++refused;
    } else if (got == clean) {
      ++same;
    } else {
      ++other;
      UNSCOPED_INFO("byte " << i << " changed what was read");
    }
  }
  INFO(same << " read as before, " << refused << " refused");
  CHECK(other == 0);
  CHECK(refused > 1000);  // most bytes are used
}
