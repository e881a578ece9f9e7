// simrun merge's core: shard files of one experiment join point for point; files of another
// experiment or code version are refused unless forced; duplicates with the same config are
// kept once, with different configs refused; missing points are reported; the output is never
// an input and appears only when complete.
#include "sim/stats/results_merge.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/core/error.h"
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
