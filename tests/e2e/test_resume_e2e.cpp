// --resume keeps a stored point only when its whole resolved config and the code version
// match (issue 15): a -p that is dropped, an edited workload file, another code version and a
// failed point all rerun, and simrun says how many it kept and reran and why.
#include <hdf5.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/config/node.h"
#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

const std::string kBase = test::source_dir() + "/configs/presets/tpuv4_chip.yaml";

std::string rows_of(const stats::PointResult& p) {
  const config::Node cfg = config::parse_yaml(p.config_yaml, "config");
  const config::Node* rows = config::get_path(cfg, "system.chip.mxu.rows");
  return rows ? rows->text() : "<none>";
}

/// Rewrites every stored point's code_version attribute, as an older simrun would have left it.
void age_points(const std::string& file) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  for (const auto& p : stats::read_point_index(file)) {
    const hid_t g = H5Gopen2(f, ("points/" + p.key).c_str(), H5P_DEFAULT);
    REQUIRE(g >= 0);
    REQUIRE(H5Adelete(g, "code_version") >= 0);
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    const hid_t s = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(g, "code_version", t, s, H5P_DEFAULT, H5P_DEFAULT);
    const char* old = "0.0.1+0123456789ab";
    REQUIRE(H5Awrite(a, t, &old) >= 0);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    H5Gclose(g);
  }
  H5Fclose(f);
}

}  // namespace

TEST_CASE("simrun --resume reruns a point whose -p override was dropped", "[e2e][resume]") {
  TempDir dir;
  dir.write("exp.yaml",
            "base: " + kBase + "\nworkload:\n  layers:\n    - {m: 256, n: 256, k: 256}\n");
  auto r = test::simrun("exp.yaml -o r.h5 -q -p system.chip.mxu.rows=64", dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(rows_of(stats::read_points(dir.file("r.h5"))[0]) == "64");
  r = test::simrun("exp.yaml -o r.h5 --resume", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("resume: kept 0 points; rerunning 1 (1 changed config); 0 new") !=
        std::string::npos);
  CHECK(r.out.find("(1 to run") != std::string::npos);
  CHECK(rows_of(stats::read_points(dir.file("r.h5"))[0]) == "128");
  // Run again unchanged: kept.
  r = test::simrun("exp.yaml -o r.h5 --resume", dir);
  CHECK(r.out.find("resume: kept 1 point; rerunning 0; 0 new") != std::string::npos);
  CHECK(r.out.find("(0 to run") != std::string::npos);
}

TEST_CASE("simrun --resume reruns a point whose workload file changed", "[e2e][resume]") {
  TempDir dir;
  dir.write("w.yaml", "name: w\nlayers:\n  - {name: g, m: 256, n: 256, k: 256}\n");
  dir.write("exp.yaml", "base: " + kBase +
                            "\nworkload: {file: w.yaml}\n"
                            "sweep:\n  system.chip.mxu.rows: [64, 128]\n");
  auto r = test::simrun("exp.yaml -o r.h5 -q", dir);
  REQUIRE(r.exit_code == 0);
  CHECK(stats::read_points(dir.file("r.h5"))[0].layers.get_string(0, "shape") == "256x256x256");
  dir.write("w.yaml", "name: w\nlayers:\n  - {name: g, m: 512, n: 256, k: 256}\n");
  r = test::simrun("exp.yaml -o r.h5 --resume", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("rerunning 2 (2 changed config)") != std::string::npos);
  for (const auto& p : stats::read_points(dir.file("r.h5")))
    CHECK(p.layers.get_string(0, "shape") == "512x256x256");
}

TEST_CASE("simrun --resume reruns points of another code version unless --resume-any-version",
          "[e2e][resume]") {
  TempDir dir;
  dir.write("exp.yaml", "base: " + kBase +
                            "\nworkload:\n  layers:\n    - {m: 64, n: 64, k: 64}\n"
                            "sweep:\n  system.chip.mxu.rows: [64, 128]\n");
  auto r = test::simrun("exp.yaml -o r.h5 -q", dir);
  REQUIRE(r.exit_code == 0);
  age_points(dir.file("r.h5"));
  r = test::simrun("exp.yaml -o r.h5 --resume-any-version", dir);
  INFO(r.out << r.err);
  CHECK(r.out.find("resume: kept 2 points") != std::string::npos);
  for (const auto& p : stats::read_point_index(dir.file("r.h5")))
    CHECK(p.code_version == "0.0.1+0123456789ab");  // kept as computed
  r = test::simrun("exp.yaml -o r.h5 --resume", dir);
  CHECK(r.out.find("rerunning 2 (2 other code version)") != std::string::npos);
  for (const auto& p : stats::read_point_index(dir.file("r.h5")))
    CHECK(p.code_version != "0.0.1+0123456789ab");
}

TEST_CASE("simrun --resume reruns failed points and keeps points by id when the grid grows",
          "[e2e][resume]") {
  TempDir dir;
  const std::string head =
      "base: " + kBase + "\nworkload:\n  layers:\n    - {m: 256, n: 512, k: 384}\n";
  dir.write("exp.yaml", head + "sweep:\n  system.chip.vmem.capacity: [16MiB, 2KiB]\n");
  auto r = test::simrun("exp.yaml -o r.h5 -q", dir);
  REQUIRE(r.exit_code == 1);  // 2KiB of VMEM fits nothing
  r = test::simrun("exp.yaml -o r.h5 --resume", dir);
  CHECK(r.out.find("resume: kept 1 point; rerunning 1 (1 failed before); 0 new") !=
        std::string::npos);
  // A value inserted in front renumbers the grid; the kept point moves with its id.
  const auto before = stats::read_points(dir.file("r.h5"));
  dir.write("exp.yaml", head + "sweep:\n  system.chip.vmem.capacity: [8MiB, 16MiB]\n");
  r = test::simrun("exp.yaml -o r.h5 --resume", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("resume: kept 1 point; rerunning 0; 1 new") != std::string::npos);
  const auto after = stats::read_points(dir.file("r.h5"));
  REQUIRE(after.size() == 2);
  CHECK(after[1].key == before[0].key);
  CHECK(after[1].id == 1);
  CHECK(after[1].layers.get_int(0, "cycles") == before[0].layers.get_int(0, "cycles"));
}
