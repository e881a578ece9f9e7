#pragma once
// End-to-end helpers for tests that run one design point through simrun (Catch2 assertions):
// run it and read its result back, or check that a config is rejected with one error line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

namespace systole::test {

/// Runs `yaml` (written as NAME.yaml in `dir`) and returns its one point, which must succeed.
inline stats::PointResult run_one(const std::string& yaml, TempDir& dir, const std::string& name) {
  dir.write(name + ".yaml", yaml);
  const auto r = simrun(name + ".yaml -o " + name + ".h5 -q", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file(name + ".h5"));
  REQUIRE(points.size() == 1);
  REQUIRE(points[0].ok());
  return points[0];
}

/// `yaml` must fail with exit 2, one "simrun: error: " line containing `expected`, nothing on
/// stdout and no results file.
inline void check_rejected(const std::string& yaml, const std::string& expected) {
  TempDir dir;
  dir.write("bad.yaml", yaml);
  const auto r = simrun("bad.yaml -o out.h5", dir);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("simrun: error: ") && Catch::Contains(expected));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5")));
}

}  // namespace systole::test
