// simrun merge never turns a corrupt input into a merged file that exits 0 but does not read
// back (issue 15). The inputs of tests/data/merge (see its README.md; found by
// tools/reliability/merge_corrupt.sh) were each once merged with exit 0 into a file that did not
// read back or held other data. Now each, merged alone or beside a good file (--force: they are
// of another experiment), is one error line naming the file and the point, exit 2, with no merged
// or partial file and an existing output left as it was; the in-process reader refuses them too.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sim/core/error.h"
#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

struct Case {
  const char* file;
  const char* line;  // after "simrun: error: FILE: cannot read results file: "
};

const Case kCases[] = {
    {"merge_column_outside_record.h5",
     "point e1c92e1d38cc: reading table mxu_layers: column 'name' (17 B at byte 65282) lies "
     "outside its 131 B record"},
    {"merge_record_size.h5",
     "point a5ed07dee647: reading table mxu: 1032 B stored for 8 records of 4225 B"},
    {"merge_no_conversion.h5",
     "point 6ec3a58da395: reading table mxu: no appropriate function for conversion path"},
    {"merge_link_name.h5",
     "point e1c92e1d38cc: 'layers' is listed in the point's group but not found by its name"},
    {"merge_corrupt_sweep.h5", "opening dataset sweep: message not aligned"},
    {"merge_string_padding.h5",
     "point a5ed07dee647: reading attribute unit: its string type is corrupt (character set 1, "
     "padding 9)"},
    {"merge_column_name.h5",
     "point a5ed07dee647: reading table mxu: a column name is not text (byte 0 of 15)"},
};

std::string slurp_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("merge refuses each input it once copied into a file that did not read back",
          "[e2e][shard][reliability]") {
  TempDir dir;
  dir.write("e.yaml", "base: " + test::source_dir() +
                          "/configs/presets/tpuv4_chip.yaml\n"
                          "workload: {layers: [{name: g, m: 128, n: 128, k: 128}]}\n");
  REQUIRE(test::simrun("e.yaml -o good.h5 -q", dir).exit_code == 0);
  const std::string earlier = "an earlier output, not to be touched\n";
  dir.write("out.h5", earlier);
  for (const auto& c : kCases) {
    const std::string bad = c.file;
    std::filesystem::copy_file(test::source_dir() + "/tests/data/merge/" + bad, dir.file(bad),
                               std::filesystem::copy_options::overwrite_existing);
    const std::string original = slurp_binary(dir.file(bad));
    for (const std::string& args :
         {"merge out.h5 " + bad, "merge out.h5 good.h5 " + bad + " --force"}) {
      const auto r = test::simrun(args, dir);
      INFO(args << "\nstdout: " << r.out << "\nstderr: " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "simrun: error: " + bad + ": cannot read results file: " + c.line + "\n");
      CHECK(r.out.empty());
      CHECK(slurp_binary(dir.file("out.h5")) == earlier);
      CHECK_FALSE(std::filesystem::exists(dir.file("out.h5.partial")));
      CHECK(slurp_binary(dir.file(bad)) == original);
    }
    INFO(bad);
    const auto read_all = [&] {
      (void)stats::read_points(dir.file(bad));
      (void)stats::read_sweep(dir.file(bad));
    };
    CHECK_THROWS_AS(read_all(), ConfigError);
  }
}

TEST_CASE("merge still joins good files after checking them", "[e2e][shard][reliability]") {
  TempDir dir;
  dir.write("e.yaml", "base: " + test::source_dir() +
                          "/configs/presets/tpuv4_chip.yaml\n"
                          "workload: {layers: [{name: g, m: 128, n: 128, k: 128}]}\n"
                          "sweep: {system.chip.mxu.rows: [64, 128, 256]}\n");
  for (int i = 0; i < 2; ++i)
    REQUIRE(
        test::simrun(
            "e.yaml -q --shard " + std::to_string(i) + "/2 -o s" + std::to_string(i) + ".h5", dir)
            .exit_code == 0);
  const auto r = test::simrun("merge out.h5 s0.h5 s1.h5", dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto points = stats::read_points(dir.file("out.h5"));
  CHECK(points.size() == 3);
  CHECK_NOTHROW(stats::check_points(dir.file("out.h5")));
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5.partial")));
}
