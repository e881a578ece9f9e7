// Where the files an experiment names are looked up (sim/config/search_path.h), end to end: an
// experiment kept outside the repository names the repository's presets and workloads by their
// short names; the naming file's folder wins over the repository; -p looks in the current
// directory first; SYSTOLE_PATH; the error for a file found nowhere; `--describe paths`; and
// /meta/resolved_files saying which file each name resolved to.
#include <catch2/catch.hpp>

#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

const std::string kGemm = "layers:\n  - {name: g, m: 128, n: 128, k: 128}\n";
const std::string kTwoGemms =
    "layers:\n  - {name: g, m: 128, n: 128, k: 128}\n  - {name: h, m: 64, n: 64, k: 64}\n";

/// The line of /meta/resolved_files for the name `name`, or "".
std::string resolved(const std::string& file, const std::string& name) {
  for (const auto& line : stats::read_meta(file).resolved_files)
    if (line.rfind(name + " (", 0) == 0) return line;
  return "";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("an experiment outside the repository names its presets and workloads by short names",
          "[e2e][paths]") {
  TempDir dir;
  for (const char* workload : {"resnet50.yaml", "workloads/resnet50.yaml"}) {
    dir.write("e.yaml", std::string("base: tpuv4_chip.yaml\nworkload: ") + workload + "\n");
    const auto r = test::simrun("e.yaml --validate", dir);
    INFO(workload << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("OK") != std::string::npos);
  }
  dir.write("e.yaml", "base: presets/tpuv4_chip.yaml\nworkload: {file: gemm_shapes.yaml}\n");
  const auto r = test::simrun("e.yaml --validate", dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("the naming file's folder comes first and /meta records what each name resolved to",
          "[e2e][paths]") {
  TempDir dir;
  // A local tpuv4_chip.yaml shadows the repository's preset of that name; it names the
  // repository's own as its base (found under configs/).
  dir.write("tpuv4_chip.yaml", "base: presets/tpuv4_chip.yaml\nname: local-chip\n");
  dir.write("gemm.yaml", kGemm);
  dir.write("e.yaml", "base: tpuv4_chip.yaml\nworkload: gemm.yaml\n");
  const auto r = test::simrun("e.yaml -q -o out.h5", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string base = resolved(dir.file("out.h5"), "tpuv4_chip.yaml");
  INFO(base);
  CHECK(base.find("(e.yaml:1:7)") != std::string::npos);
  CHECK(ends_with(base, "-> tpuv4_chip.yaml"));
  const std::string preset = resolved(dir.file("out.h5"), "presets/tpuv4_chip.yaml");
  INFO(preset);
  CHECK(ends_with(preset, "/configs/presets/tpuv4_chip.yaml"));
  CHECK(ends_with(resolved(dir.file("out.h5"), "gemm.yaml"), "-> gemm.yaml"));
  CHECK(stats::read_meta(dir.file("out.h5")).experiment_name == "local-chip");
}

TEST_CASE("a -p file name is looked up in the current directory before the experiment's folder",
          "[e2e][paths]") {
  TempDir dir;
  dir.write("exp/e.yaml", "base: tpuv4_chip.yaml\nworkload: {file: gemm_shapes.yaml}\n");
  dir.write("exp/mine.yaml", kGemm);
  SECTION("only in the experiment's folder") {
    const auto r = test::simrun("exp/e.yaml -q -o out.h5 -p workload.file=mine.yaml", dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(ends_with(resolved(dir.file("out.h5"), "mine.yaml"), "-> exp/mine.yaml"));
  }
  SECTION("in both: the current directory's wins, for -p workload=FILE too") {
    dir.write("mine.yaml", kTwoGemms);
    const auto r = test::simrun("exp/e.yaml -q -o out.h5 -p workload=mine.yaml", dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string line = resolved(dir.file("out.h5"), "mine.yaml");
    CHECK(line.find("(<command line") != std::string::npos);
    CHECK(ends_with(line, "-> mine.yaml"));
    const auto points = stats::read_points(dir.file("out.h5"));
    REQUIRE(points.size() == 1);
    CHECK(points[0].layers.rows().size() == 2);
  }
}

TEST_CASE("SYSTOLE_PATH folders are searched last", "[e2e][paths]") {
  TempDir dir;
  dir.write("lib/shapes/mygemm.yaml", kGemm);
  dir.write("e.yaml", "base: tpuv4_chip.yaml\nworkload: shapes/mygemm.yaml\n");
  auto r = test::simrun("e.yaml --validate", dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("e.yaml:2:11: workload.file: file 'shapes/mygemm.yaml' not found") !=
        std::string::npos);
  r = test::run("cd " + dir.dir.string() + " && SYSTOLE_PATH=/nonexistent:" + dir.file("lib") +
                    " " + test::simrun_path() + " e.yaml -q -o out.h5",
                dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(ends_with(resolved(dir.file("out.h5"), "shapes/mygemm.yaml"),
                  "-> " + dir.file("lib/shapes/mygemm.yaml")));
}

TEST_CASE("a file found nowhere is exit 2 naming where it was named and the folders searched",
          "[e2e][paths]") {
  TempDir dir;
  dir.write("e.yaml", "base: tpuv4_chip.yaml\nworkload: resnet5.yaml\n");
  const auto r = test::simrun("e.yaml --validate", dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "simrun: error: e.yaml:2:11: workload.file: file 'resnet5.yaml' not found (did you mean "
        "'resnet50.yaml'?); searched ., the repository's configs/, configs/presets/, workloads/ "
        "and root, SYSTOLE_PATH (unset)\n");
}

TEST_CASE("simrun --describe paths prints the search path", "[e2e][paths]") {
  TempDir dir;
  const auto r = test::run("SYSTOLE_PATH=" + dir.file("nothere") + ":" + dir.dir.string() + " " +
                               test::simrun_path() + " --describe paths",
                           dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("the folder of the file that names it") != std::string::npos);
  CHECK(r.out.find(test::source_dir() + "/configs/presets") != std::string::npos);
  CHECK(r.out.find(dir.file("nothere")) != std::string::npos);
  CHECK(r.out.find("missing") != std::string::npos);
  CHECK(r.out.find(dir.dir.string() + " ") != std::string::npos);
  // With an experiment, its folder.
  dir.write("sub/e.yaml", "name: x\n");
  const auto e = test::simrun("--describe paths sub/e.yaml", dir);
  CHECK(e.exit_code == 0);
  CHECK(e.out.find("2. the experiment's folder:\n       sub ") != std::string::npos);
}
