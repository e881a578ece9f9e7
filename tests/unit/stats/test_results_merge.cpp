// simrun merge's core: shard files of one experiment join point for point; files of another
// experiment or code version are refused unless forced; duplicates with the same config are
// kept once, with different configs refused; missing points are reported; the output is never
// an input and appears only when complete; every merged point is its shard's, object for object.
#include "sim/stats/results_merge.h"

#include <hdf5.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/stats/hdf5_io.h"
#include "sim/stats/results_file.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace systole::stats;
using systole::test::TempDir;

namespace {

RunMeta meta_of(int shard, int count, size_t total, const std::string& experiment = "e1",
                const std::string& version = "0.1.0+abc") {
  RunMeta m;
  m.code_version = version;
  m.experiment_id = experiment;
  m.shard_index = shard;
  m.shard_count = count;
  m.points_total = total;
  m.swept_paths = {"system.rows"};
  m.start_time = "2025-01-0" + std::to_string(shard + 1) + "T00:00:00Z";
  return m;
}

PointResult point(int index, const std::string& config = "c", bool ok = true) {
  PointResult r;
  r.id = index;
  r.key = "k" + std::to_string(index);
  r.config_hash = config + std::to_string(index);
  r.code_version = "0.1.0+abc";
  r.assignments = {{"system.rows", std::to_string(64 * (index + 1))}};
  r.label = "system.rows=" + std::to_string(64 * (index + 1));
  r.status = ok ? "ok" : "failed";
  if (!ok) r.error = "it broke";
  r.wall_seconds = 0.5 + index;
  r.metrics.i("total_cycles", "cycles", "cycles", 1000 + index);
  r.layers.append(Record().s("layer", "name", "g").i("cycles", "cycles", "c", 10 * index));
  return r;
}

/// Writes shard `shard` of `count` of a `total`-point sweep (points i with i % count == shard).
std::string shard_file(const TempDir& d, int shard, int count, size_t total,
                       const std::string& experiment = "e1",
                       const std::string& version = "0.1.0+abc") {
  const std::string path = d.file("s" + std::to_string(shard) + "of" + std::to_string(count) +
                                  experiment + version + ".h5");
  ResultsWriter w(path, meta_of(shard, count, total, experiment, version));
  for (size_t i = 0; i < total; ++i)
    if (static_cast<int>(i % static_cast<size_t>(count)) == shard)
      w.write_point(point(static_cast<int>(i)));
  w.commit();
  return path;
}

std::string merge_error(const std::string& out, const std::vector<std::string>& in,
                        bool force = false) {
  try {
    merge_results(out, in, {force, "simrun merge"});
  } catch (const systole::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("merge: the shards of a sweep join into one file, point for point", "[stats][hdf5]") {
  TempDir d;
  std::vector<std::string> in;
  for (int s = 0; s < 3; ++s) in.push_back(shard_file(d, s, 3, 8));
  const std::string out = d.file("all.h5");
  const MergeReport r = merge_results(out, in, {false, "simrun merge all.h5 ..."});
  CHECK(r.points == 8);
  CHECK(r.missing == 0);
  CHECK(r.duplicates == 0);
  CHECK(r.warnings.empty());
  CHECK_FALSE(fs::exists(out + ".partial"));
  const auto points = read_points(out);
  REQUIRE(points.size() == 8);
  for (int i = 0; i < 8; ++i) {
    const PointResult want = point(i);
    CHECK(points[static_cast<size_t>(i)].key == want.key);
    CHECK(points[static_cast<size_t>(i)].id == i);
    CHECK(points[static_cast<size_t>(i)].config_hash == want.config_hash);
    CHECK(points[static_cast<size_t>(i)].layers.get_int(0, "cycles") == 10 * i);
  }
  const Table sweep = read_sweep(out);
  REQUIRE(sweep.rows().size() == 8);
  for (size_t i = 0; i < 8; ++i) {
    CHECK(sweep.get_int(i, "index") == static_cast<int>(i));
    CHECK(sweep.get_int(i, "system.rows") == 64 * static_cast<int>(i + 1));
    CHECK(sweep.get_int(i, "total_cycles") == 1000 + static_cast<int>(i));
  }
  const RunMeta m = read_meta(out);
  CHECK(m.shard_count == 1);
  CHECK(m.points_total == 8);
  CHECK(m.experiment_id == "e1");
  CHECK(m.merged_from == in);
  CHECK(m.start_time == "2025-01-01T00:00:00Z");  // the earliest shard's
  CHECK(m.command_line == "simrun merge all.h5 ...");
}

TEST_CASE("merge: a missing shard is reported with the points it held", "[stats][hdf5]") {
  TempDir d;
  const std::vector<std::string> in = {shard_file(d, 0, 3, 8), shard_file(d, 2, 3, 8)};
  const MergeReport r = merge_results(d.file("out.h5"), in, {false, ""});
  CHECK(r.points == 5);
  CHECK(r.missing == 3);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::Contains("3 of the experiment's 8 design points") &&
                                Catch::Contains("shard 1/3") && Catch::Contains("1, 4, 7"));
}

TEST_CASE("merge: files of another experiment or code version need --force", "[stats][hdf5]") {
  TempDir d;
  const std::string a = shard_file(d, 0, 2, 4);
  const std::string other_exp = shard_file(d, 1, 2, 4, "e2");
  const std::string other_ver = shard_file(d, 1, 2, 4, "e1", "0.2.0+def");
  CHECK_THAT(merge_error(d.file("o.h5"), {a, other_exp}),
             Catch::Contains("another experiment") && Catch::Contains("--force"));
  CHECK_THAT(merge_error(d.file("o.h5"), {a, other_ver}),
             Catch::Contains("another code version") && Catch::Contains("0.2.0+def"));
  CHECK_FALSE(fs::exists(d.file("o.h5")));
  CHECK_FALSE(fs::exists(d.file("o.h5.partial")));
  const MergeReport r = merge_results(d.file("o.h5"), {a, other_ver}, {true, ""});
  CHECK(r.points == 4);
  REQUIRE_FALSE(r.warnings.empty());
  CHECK_THAT(r.warnings[0], Catch::Contains("--force"));
}

TEST_CASE("merge: duplicates with the same config are kept once, different ones refused",
          "[stats][hdf5]") {
  TempDir d;
  const std::string a = shard_file(d, 0, 1, 3);
  SECTION("the same points twice, one run failed: the successful one is kept") {
    const std::string b = d.file("b.h5");
    {
      ResultsWriter w(b, meta_of(0, 1, 3));
      w.write_point(point(1, "c", false));
      w.commit();
    }
    const MergeReport r = merge_results(d.file("o.h5"), {b, a}, {false, ""});
    CHECK(r.points == 3);
    CHECK(r.duplicates == 1);
    CHECK(r.failed == 0);
    CHECK(read_points(d.file("o.h5"))[1].ok());
  }
  SECTION("the same point with another config is an error") {
    const std::string b = d.file("b.h5");
    {
      ResultsWriter w(b, meta_of(0, 1, 3));
      w.write_point(point(2, "other"));
      w.commit();
    }
    CHECK_THAT(merge_error(d.file("o.h5"), {a, b}),
               Catch::Contains("point k2") && Catch::Contains("differ"));
    CHECK_FALSE(fs::exists(d.file("o.h5")));
  }
}

TEST_CASE("merge: the output is never an input, and inputs must exist", "[stats][hdf5]") {
  TempDir d;
  const std::string a = shard_file(d, 0, 2, 4);
  const std::string b = shard_file(d, 1, 2, 4);
  const auto before = fs::file_size(a);
  CHECK_THAT(merge_error(a, {a, b}), Catch::Contains("is also an input"));
  CHECK(fs::file_size(a) == before);
  CHECK(read_points(a).size() == 2);
  CHECK_THAT(merge_error(d.file("o.h5"), {a, d.file("nope.h5")}), Catch::Contains("no such file"));
  CHECK_THAT(merge_error(d.file("o.h5"), {}), Catch::Contains("no input files"));
  fs::create_directory(d.file("dir.h5"));
  CHECK_THAT(merge_error(d.file("o.h5"), {a, d.file("dir.h5")}),
             Catch::Contains("not a regular file"));
  CHECK_FALSE(fs::exists(d.file("o.h5")));
}

namespace {

using systole::stats::h5::Hid;

/// A point with everything a run can write: units tables (their group keeps creation order),
/// a trace (chunked, compressed, enums), a failed status with an error.
PointResult full_point(int index) {
  PointResult r = point(index, "c", index % 3 != 2);
  r.config_yaml = "system:\n  rows: " + std::to_string(64 * (index + 1)) + "\n";
  Table mxu("mxu", "one row per MXU");
  mxu.set_columns({{"name", "", "instance", ColumnType::kString},
                   {"busy", "cycles", "busy cycles", ColumnType::kInt},
                   {"util", "", "utilization", ColumnType::kFloat}});
  for (int i = 0; i < 3; ++i)
    mxu.add_row({"chip0.mxu" + std::to_string(i), std::int64_t{100 * index + i}, 0.25 * i});
  Table dma("dma", "one row per DMA engine");
  dma.set_columns({{"name", "", "instance", ColumnType::kString},
                   {"bytes", "B", "bytes moved", ColumnType::kInt}});
  dma.add_row({std::string("chip0.dma0"), std::int64_t{4096 + index}});
  r.units = {mxu, dma};  // not in name order: the group's creation order must survive
  r.trace.enabled = true;
  r.trace.units = {"chip0.mxu0", "chip0.dma0"};
  r.trace.kinds = {"load", "matmul"};
  r.trace.place("chip0.hbm");
  r.trace.clock = 1.05e9;
  for (std::uint64_t i = 0; i < 5; ++i) {
    TraceEvent e;
    e.begin = 10 * i;
    e.end = 10 * i + 7 + static_cast<std::uint64_t>(index);
    e.unit = static_cast<std::uint32_t>(i % 2);
    e.kind = static_cast<std::uint16_t>(i % 2);
    e.bytes = 64 * i;
    e.src = e.dst = static_cast<std::uint16_t>(i % 2);
    r.trace.events.push_back(e);
  }
  return r;
}

std::vector<std::string> names_in(hid_t loc, bool attributes) {
  std::vector<std::string> out;
  if (attributes) {
    H5Aiterate2(
        loc, H5_INDEX_NAME, H5_ITER_INC, nullptr,
        [](hid_t, const char* n, const H5A_info_t*, void* d) -> herr_t {
          static_cast<std::vector<std::string>*>(d)->push_back(n);
          return 0;
        },
        &out);
  } else {
    out = systole::stats::h5::list_links(loc);  // creation order where the group tracks it
  }
  return out;
}

/// The values of a dataset or attribute as comparable bytes: variable-length strings read as
/// text, everything else as the file's own bytes.
std::string values_of(hid_t id, bool attr) {
  Hid type(attr ? H5Aget_type(id) : H5Dget_type(id));
  Hid space(attr ? H5Aget_space(id) : H5Dget_space(id));
  const auto n = static_cast<size_t>(H5Sget_simple_extent_npoints(space));
  if (H5Tis_variable_str(type) > 0) {
    Hid mem = systole::stats::h5::str_type(0);
    std::vector<char*> p(n, nullptr);
    REQUIRE((attr ? H5Aread(id, mem, p.data())
                  : H5Dread(id, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data())) >= 0);
    std::string out;
    for (char* s : p) {
      out += std::string(s != nullptr ? s : "<null>") + '\0';
      H5free_memory(s);
    }
    return out;
  }
  std::string out(H5Tget_size(type) * n, '\0');
  if (n > 0)
    REQUIRE((attr ? H5Aread(id, type, out.data())
                  : H5Dread(id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data())) >= 0);
  return out;
}

void require_same_shape(hid_t a, hid_t b, bool attr) {
  Hid ta(attr ? H5Aget_type(a) : H5Dget_type(a)), tb(attr ? H5Aget_type(b) : H5Dget_type(b));
  CHECK(H5Tequal(ta, tb) > 0);
  Hid sa(attr ? H5Aget_space(a) : H5Dget_space(a)), sb(attr ? H5Aget_space(b) : H5Dget_space(b));
  CHECK(H5Sextent_equal(sa, sb) > 0);
  CHECK(values_of(a, attr) == values_of(b, attr));
}

/// Object `name` under `a` and under `b` hold the same: kind, links in order, datatypes,
/// shapes (max dims included), storage layout and filters, values, attributes.
void require_same_object(hid_t a, hid_t b, const std::string& name) {
  INFO("object " << name);
  Hid oa(H5Oopen(a, name.c_str(), H5P_DEFAULT)), ob(H5Oopen(b, name.c_str(), H5P_DEFAULT));
  REQUIRE(oa.valid());
  REQUIRE(ob.valid());
  const H5I_type_t kind = H5Iget_type(oa);
  REQUIRE(kind == H5Iget_type(ob));
  const auto attrs = names_in(oa, true);
  REQUIRE(attrs == names_in(ob, true));
  for (const auto& n : attrs) {
    INFO("attribute " << n);
    Hid aa(H5Aopen(oa, n.c_str(), H5P_DEFAULT)), ab(H5Aopen(ob, n.c_str(), H5P_DEFAULT));
    require_same_shape(aa, ab, true);
  }
  if (kind == H5I_DATASET) {
    require_same_shape(oa, ob, false);
    Hid pa(H5Dget_create_plist(oa)), pb(H5Dget_create_plist(ob));
    CHECK(H5Pget_layout(pa) == H5Pget_layout(pb));
    CHECK(H5Pget_nfilters(pa) == H5Pget_nfilters(pb));
    return;
  }
  const auto links = names_in(oa, false);
  REQUIRE(links == names_in(ob, false));
  for (const auto& l : links) require_same_object(oa, ob, l);
}

}  // namespace

TEST_CASE(
    "merge: every merged point equals its shard's point object for object and value for value",
    "[stats][hdf5]") {
  TempDir d;
  std::vector<std::string> in;
  for (int s = 0; s < 3; ++s) {
    in.push_back(d.file("full" + std::to_string(s) + ".h5"));
    ResultsWriter w(in.back(), meta_of(s, 3, 7));
    for (int i = s; i < 7; i += 3) w.write_point(full_point(i));
    w.commit();
  }
  const std::string out = d.file("all.h5");
  CHECK(merge_results(out, in, {false, "simrun merge"}).points == 7);
  Hid merged(H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(merged.valid());
  size_t seen = 0;
  for (const auto& path : in) {
    Hid shard(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    REQUIRE(shard.valid());
    Hid points(H5Gopen2(shard, "points", H5P_DEFAULT));
    for (const auto& key : names_in(points, false)) {
      require_same_object(shard, merged, "points/" + key);
      require_same_object(shard, merged, "config/" + key);
      ++seen;
    }
  }
  CHECK(seen == 7);
  Hid all(H5Gopen2(merged, "points", H5P_DEFAULT));
  CHECK(names_in(all, false).size() == 7);
  // The copies read back as the points written.
  const auto back = read_points(out);
  REQUIRE(back.size() == 7);
  for (const auto& p : back) {
    const PointResult want = full_point(p.id);
    CHECK(p.units.size() == 2);
    CHECK(p.units[0].name() == "mxu");  // creation order, not name order
    CHECK(p.trace.events.size() == want.trace.events.size());
    CHECK(p.trace.events.back().end == want.trace.events.back().end);
    CHECK(p.status == want.status);
  }
}
