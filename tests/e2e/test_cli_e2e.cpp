// The command line never ignores what the user typed (issue 14, item 4): every -p path starts
// at a key an experiment has, a -p on one member of a zip group is an error naming the
// argument, -p and sweeps reach the parameters of a workload given as a plain file name, and
// --validate lists the design points it checked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/background.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

std::string gemm_sweep() {
  return "base: " + test::source_dir() + R"(/configs/presets/tpuv4_chip.yaml
workload:
  layers:
    - {name: a, m: 256, n: 512, k: 384}
sweep:
  system.chip.hbm.bandwidth: [1.2TB/s, 2.4TB/s]
  zip:
    - system.chip.mxu.rows: [128, 256]
      system.chip.mxu.cols: [128, 256]
)";
}

/// One error line on stderr, exit 2, nothing on stdout.
void check_error(const test::CommandResult& r, const std::string& part) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find(part) != std::string::npos);
}

}  // namespace

TEST_CASE("simrun: -p paths start at the experiment's top level", "[e2e][cli]") {
  TempDir dir;
  dir.write("e.yaml", gemm_sweep());
  // The form --describe tpu_chip prints: the error says which path was meant.
  auto r = test::simrun("e.yaml -p chip.mxu.rows=64 --validate", dir);
  check_error(r,
              "<command line -p chip.mxu.rows=64>: chip.mxu.rows: unknown top-level key "
              "'chip' (did you mean 'system.chip.mxu.rows'?)");
  r = test::simrun("e.yaml -p sytem.chip.clock=2GHz --validate", dir);
  check_error(r, "unknown top-level key 'sytem' (did you mean 'system' or 'systems'?)");
  r = test::simrun("e.yaml -p foo.bar=1 --validate", dir);
  check_error(r, "unknown top-level key 'foo'");
  r = test::simrun("e.yaml -p system.chip.mxu.rowz=64 --validate", dir);
  check_error(r, "unknown key for mxu (did you mean 'rows'?)");
}

TEST_CASE("simrun: -p on one member of a zip group is an error naming the argument", "[e2e][cli]") {
  TempDir dir;
  dir.write("e.yaml", gemm_sweep());
  auto r = test::simrun("e.yaml -p system.chip.mxu.rows=64 --validate", dir);
  check_error(r,
              "<command line -p system.chip.mxu.rows=64>: system.chip.mxu.rows: is swept "
              "together with system.chip.mxu.cols (sweep.zip[0] at e.yaml:8:");
  // Every member given: the group's values are fixed, the other axis still sweeps.
  r = test::simrun("e.yaml -p system.chip.mxu.rows=64 -p system.chip.mxu.cols=32 --validate", dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("OK — 2 design points") != std::string::npos);
  CHECK(r.out.find("system.chip.hbm.bandwidth=2.4TB/s") != std::string::npos);
  CHECK(r.out.find("mxu.rows") == std::string::npos);  // not swept any more
}

TEST_CASE("simrun: -p and sweeps reach the parameters of a workload named by its file",
          "[e2e][cli]") {
  TempDir dir;
  dir.write("e.yaml", "base: " + test::source_dir() +
                          "/configs/presets/tpuv4_chip.yaml\nworkload: " + test::source_dir() +
                          "/workloads/resnet50.yaml\n");
  auto r = test::simrun("e.yaml -p 'sweep.workload.params.batch=[1,4]' --validate", dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("OK — 2 design points") != std::string::npos);
  CHECK(r.out.find("point 1 (id ") != std::string::npos);
  CHECK(r.out.find("workload.params.batch=4") != std::string::npos);
  r = test::simrun("e.yaml -p workload.params.batch=2 --validate", dir);
  CHECK(r.exit_code == 0);
}

TEST_CASE("simrun --validate lists the design points it checked", "[e2e][cli]") {
  TempDir dir;
  dir.write("e.yaml", gemm_sweep());
  const auto r = test::simrun("e.yaml --validate", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("e.yaml: OK — 4 design points, 1 layer\n") == 0);
  CHECK(r.out.find("  point 0 (id ") != std::string::npos);
  CHECK(r.out.find("): system.chip.hbm.bandwidth=2.4TB/s, system.chip.mxu.rows=256, "
                   "system.chip.mxu.cols=256\n") != std::string::npos);
}

TEST_CASE("SCALE-Sim mode refuses the options it does not honour", "[e2e][cli]") {
  TempDir dir;
  for (const char* opt :
       {"-p system.chip.mxu.rows=64", "--jobs 2", "--resume", "--validate", "--shard 0/2"}) {
    const auto r =
        test::simrun(std::string("--scalesim-cfg x.cfg --topology y.csv -o s.h5 ") + opt, dir);
    INFO(opt);
    check_error(r, "not honoured in SCALE-Sim mode");
    CHECK_FALSE(std::filesystem::exists(dir.file("s.h5")));
  }
}

TEST_CASE("simrun: Ctrl-C keeps the finished points and says how to --resume", "[e2e][cli]") {
  TempDir dir;
  // Two points of milliseconds, then one of 16384^3 (12.7 s on this project's 2-core host). The
  // SIGINT goes out as soon as the first two are in the partial file, while the third runs: the
  // outcome does not depend on the machine's speed or load.
  dir.write("e.yaml", "base: " + test::source_dir() +
                          "/configs/presets/tpuv4_chip.yaml\n"
                          "workload: {params: {m: 256}, layers: [{name: g, m: m, n: m, k: m}]}\n"
                          "sweep: {workload.params.m: [256, 384, 16384]}\n");
  const pid_t pid = test::start_simrun("e.yaml -o r.h5 --jobs 1", dir);
  REQUIRE(test::wait_for([&] { return test::points_in(dir.file("r.h5.partial"), dir) >= 2; }, 120));
  REQUIRE(test::running(pid));
  ::kill(pid, SIGINT);
  REQUIRE(test::wait_for([&] { return !test::running(pid); }, 60));
  const std::string err = test::slurp(dir.file("bg.err"));
  INFO(err);
  CHECK(err.find("simrun: interrupted; the points finished so far are kept in r.h5.partial: "
                 "run the same command with --resume to continue\n") != std::string::npos);
  CHECK(std::filesystem::exists(dir.file("r.h5.partial")));
  CHECK_FALSE(std::filesystem::exists(dir.file("r.h5")));
  // --resume keeps exactly the two finished points and runs the third again (stopped here by a
  // point time limit: its result is a failed point, so the run exits 1).
  const auto again = test::simrun("e.yaml -o r.h5 --jobs 1 --resume --point-timeout 2", dir);
  INFO(again.out << again.err);
  CHECK(again.exit_code == 1);
  CHECK(again.out.find("resume: kept 2 points; rerunning 0; 1 new") != std::string::npos);
  const auto points = stats::read_points(dir.file("r.h5"));
  REQUIRE(points.size() == 3);
  for (const auto& p : points) CHECK(p.ok() == (p.id < 2));
}
