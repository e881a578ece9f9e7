// End to end through simrun: `-p system.chip.mxu.model=pe` runs the TPU v4 preset's MXUs
// (128x128, the largest array the PE model takes) at the PE level and writes the same layer
// and unit results as the default fold-level model; --describe documents the key.
#include <catch2/catch.hpp>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

// Two small GEMMs on the preset chip (8 MXUs of 128x128): edge tiles in every dimension.
const std::string kConfig = "base: " + test::source_dir() +
                            "/configs/presets/tpuv4_chip.yaml\n"
                            "workload:\n  layers:\n"
                            "    - {name: a, m: 200, n: 300, k: 260}\n"
                            "    - {name: b, m: 8, n: 520, k: 136}\n";

stats::PointResult run(const TempDir& dir, const std::string& args, const std::string& out) {
  const auto r = test::simrun("small.yaml -q -o " + out + " " + args, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file(out));
  REQUIRE(points.size() == 1);
  REQUIRE(points[0].ok());
  return points[0];
}

void require_equal(const stats::Table& a, const stats::Table& b) {
  INFO("table " << a.name());
  REQUIRE(a.rows().size() == b.rows().size());
  REQUIRE(a.columns().size() == b.columns().size());
  for (size_t r = 0; r < a.rows().size(); ++r) CHECK(a.rows()[r] == b.rows()[r]);
}

}  // namespace

TEST_CASE("simrun -p system.chip.mxu.model=pe: the same results as fold", "[e2e][mxu]") {
  TempDir dir;
  dir.write("small.yaml", kConfig);
  const auto fold = run(dir, "", "fold.h5");
  const auto pe = run(dir, "-p system.chip.mxu.model=pe", "pe.h5");
  CHECK(pe.config_yaml.find("model: pe") != std::string::npos);
  CHECK(fold.config_yaml.find("model: fold") != std::string::npos);  // the default, recorded
  REQUIRE(fold.layers.get_int(0, "cycles") > 0);
  require_equal(fold.layers, pe.layers);
  REQUIRE(fold.units.size() == pe.units.size());
  for (size_t u = 0; u < fold.units.size(); ++u) require_equal(fold.units[u], pe.units[u]);
}

TEST_CASE("simrun: mxu.model is documented and checked", "[e2e][mxu]") {
  TempDir dir;
  auto r = test::simrun("--describe tpu_chip", dir);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("chip.mxu.model") != std::string::npos);
  CHECK(r.out.find("PE-level reference") != std::string::npos);
  dir.write("small.yaml", kConfig);
  r = test::simrun("small.yaml -q -o x.h5 -p system.chip.mxu.model=pe -p system.chip.mxu.rows=256",
                   dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("system.chip.mxu.model") != std::string::npos);
  CHECK(r.err.find("at most 16384 PEs") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("x.h5")));
}
