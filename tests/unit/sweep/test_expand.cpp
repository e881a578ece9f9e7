// Sweep expansion: grid axes (cartesian product, last axis fastest) and zip groups (paths that
// advance together), plus the errors for malformed sweeps.
#include "sim/sweep/expand.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace systole;
using systole::config::Node;
using systole::sweep::expand;
using systole::sweep::Point;
using systole::sweep::swept_paths;

namespace {

const char* const kRoot =
    "system:\n"
    "  kind: tpu_chip\n"
    "  chip:\n"
    "    clock: 1050MHz\n"
    "    mxu: {rows: 128, cols: 128}\n"
    "    hbm: {bandwidth: 1.2TB/s}\n"
    "workload:\n"
    "  layers:\n"
    "    - {m: 8, n: 8, k: 8}\n";

// An experiment with the tree above and `sweep_yaml` (parsed as file "sweep.yaml") as its sweep.
config::Experiment experiment(const std::string& sweep_yaml) {
  config::Experiment ex;
  ex.file = "exp.yaml";
  ex.root = config::parse_yaml(kRoot, "exp.yaml");
  if (!sweep_yaml.empty()) ex.sweep = config::parse_yaml(sweep_yaml, "sweep.yaml");
  return ex;
}

std::string text_at(const Node& root, const std::string& path) {
  const Node* n = config::get_path(root, path);
  return n && n->is_scalar() ? n->text() : "<missing>";
}

std::vector<std::string> labels(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const auto& p : points) out.push_back(p.label());
  return out;
}

std::vector<std::string> assigned_paths(const Point& p) {
  std::vector<std::string> out;
  for (const auto& a : p.assignments) out.push_back(a.first);
  return out;
}

// The ConfigError message expanding `sweep_yaml` gives, or "<no error>".
std::string expand_error(const std::string& sweep_yaml) {
  try {
    expand(experiment(sweep_yaml));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("sweep: no sweep gives one point labelled base", "[sweep]") {
  const auto ex = experiment("");
  const auto points = expand(ex);
  REQUIRE(points.size() == 1);
  CHECK(points[0].id == 0);
  CHECK(points[0].assignments.empty());
  CHECK(points[0].label() == "base");
  CHECK(text_at(points[0].root, "system.chip.mxu.rows") == "128");
  CHECK(text_at(points[0].root, "system.chip.clock") == "1050MHz");
  CHECK(swept_paths(ex.sweep).empty());
}

TEST_CASE("sweep: a grid of two axes is their product with the last axis fastest", "[sweep]") {
  const auto ex = experiment(
      "system.chip.mxu.rows: [64, 128, 256]\n"
      "system.chip.hbm.bandwidth: [1.2TB/s, 2.4TB/s]\n");
  const auto points = expand(ex);
  REQUIRE(points.size() == 6);
  CHECK(labels(points) == std::vector<std::string>{
                              "system.chip.mxu.rows=64, system.chip.hbm.bandwidth=1.2TB/s",
                              "system.chip.mxu.rows=64, system.chip.hbm.bandwidth=2.4TB/s",
                              "system.chip.mxu.rows=128, system.chip.hbm.bandwidth=1.2TB/s",
                              "system.chip.mxu.rows=128, system.chip.hbm.bandwidth=2.4TB/s",
                              "system.chip.mxu.rows=256, system.chip.hbm.bandwidth=1.2TB/s",
                              "system.chip.mxu.rows=256, system.chip.hbm.bandwidth=2.4TB/s",
                          });

  const char* rows[] = {"64", "64", "128", "128", "256", "256"};
  const char* bws[] = {"1.2TB/s", "2.4TB/s", "1.2TB/s", "2.4TB/s", "1.2TB/s", "2.4TB/s"};
  for (size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    const Point& p = points[i];
    CHECK(p.id == static_cast<int>(i));
    REQUIRE(p.assignments.size() == 2);
    CHECK(p.assignments[0].first == "system.chip.mxu.rows");
    CHECK(p.assignments[0].second.text() == rows[i]);
    CHECK(p.assignments[1].first == "system.chip.hbm.bandwidth");
    CHECK(p.assignments[1].second.text() == bws[i]);
    // The values are written into the point's own tree; the rest is the experiment's.
    CHECK(text_at(p.root, "system.chip.mxu.rows") == rows[i]);
    CHECK(text_at(p.root, "system.chip.hbm.bandwidth") == bws[i]);
    CHECK(text_at(p.root, "system.chip.mxu.cols") == "128");
    CHECK(text_at(p.root, "system.kind") == "tpu_chip");
    // Swept values keep the origin of the sweep entry that gave them.
    CHECK(config::get_path(p.root, "system.chip.mxu.rows")->origin().file == "sweep.yaml");
  }
  // The experiment's tree is not modified.
  CHECK(text_at(ex.root, "system.chip.mxu.rows") == "128");
}

TEST_CASE("sweep: a zip group advances together and is crossed with a grid axis", "[sweep]") {
  const auto ex = experiment(
      "system.chip.clock: [1GHz, 2GHz]\n"
      "zip:\n"
      "  - system.chip.mxu.rows: [128, 256, 512]\n"
      "    system.chip.mxu.cols: [64, 128, 256]\n");
  const auto points = expand(ex);
  REQUIRE(points.size() == 6);

  const char* clocks[] = {"1GHz", "1GHz", "1GHz", "2GHz", "2GHz", "2GHz"};
  const char* rows[] = {"128", "256", "512", "128", "256", "512"};
  const char* cols[] = {"64", "128", "256", "64", "128", "256"};
  for (size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    const Point& p = points[i];
    CHECK(p.id == static_cast<int>(i));
    CHECK(assigned_paths(p) == std::vector<std::string>{"system.chip.clock", "system.chip.mxu.rows",
                                                        "system.chip.mxu.cols"});
    CHECK(text_at(p.root, "system.chip.clock") == clocks[i]);
    CHECK(text_at(p.root, "system.chip.mxu.rows") == rows[i]);
    CHECK(text_at(p.root, "system.chip.mxu.cols") == cols[i]);
  }
  CHECK(points[4].label() ==
        "system.chip.clock=2GHz, system.chip.mxu.rows=256, system.chip.mxu.cols=128");
}

TEST_CASE("sweep: two zip groups are two axes", "[sweep]") {
  const auto points = expand(experiment(
      "zip:\n"
      "  - {system.chip.mxu.rows: [64, 128], system.chip.mxu.cols: [32, 64]}\n"
      "  - {system.chip.clock: [1GHz, 2GHz, 3GHz], system.chip.hbm.bandwidth: [1TB/s, 2TB/s, "
      "3TB/s]}\n"));
  REQUIRE(points.size() == 6);
  CHECK(points[5].label() ==
        "system.chip.mxu.rows=128, system.chip.mxu.cols=64, system.chip.clock=3GHz, "
        "system.chip.hbm.bandwidth=3TB/s");
}

TEST_CASE("sweep: paths may index into lists", "[sweep]") {
  const auto points = expand(experiment("workload.layers[0].m: [16, 32]\n"));
  REQUIRE(points.size() == 2);
  CHECK(text_at(points[0].root, "workload.layers[0].m") == "16");
  CHECK(text_at(points[1].root, "workload.layers[0].m") == "32");
  CHECK(text_at(points[1].root, "workload.layers[0].n") == "8");
}

TEST_CASE("sweep: swept_paths lists grid axes and zip members in column order", "[sweep]") {
  const auto ex = experiment(
      "system.chip.clock: [1GHz, 2GHz]\n"
      "system.chip.hbm.bandwidth: [1TB/s]\n"
      "zip:\n"
      "  - system.chip.mxu.rows: [128, 256]\n"
      "    system.chip.mxu.cols: [128, 256]\n");
  const auto paths = swept_paths(ex.sweep);
  CHECK(paths == std::vector<std::string>{"system.chip.clock", "system.chip.hbm.bandwidth",
                                          "system.chip.mxu.rows", "system.chip.mxu.cols"});
  // The columns match the order of every point's assignments.
  const auto points = expand(ex);
  REQUIRE(points.size() == 4);
  for (const auto& p : points) CHECK(assigned_paths(p) == paths);
}

TEST_CASE("sweep: swept_paths matches the assignment order when zip comes first", "[sweep]") {
  const auto ex = experiment(
      "zip:\n"
      "  - system.chip.mxu.rows: [128, 256]\n"
      "    system.chip.mxu.cols: [128, 256]\n"
      "system.chip.clock: [1GHz, 2GHz]\n");
  const auto paths = swept_paths(ex.sweep);
  REQUIRE(paths.size() == 3);
  const auto points = expand(ex);
  REQUIRE(points.size() == 4);
  for (const auto& p : points) CHECK(assigned_paths(p) == paths);
}

TEST_CASE("sweep: malformed sweeps give exact errors", "[sweep]") {
  CHECK(expand_error("system.chip.mxu.rows: 128\n") ==
        "sweep.yaml:1:23: sweep.system.chip.mxu.rows: expected a list of values to sweep, got a "
        "value");
  CHECK(expand_error("system.chip.mxu.rows: []\n") ==
        "sweep.yaml:1:23: sweep.system.chip.mxu.rows: the sweep list is empty");
  CHECK(expand_error("zip:\n"
                     "  - system.chip.mxu.rows: [128, 256]\n"
                     "    system.chip.mxu.cols: [64, 128, 256]\n") ==
        "sweep.yaml:3:27: sweep.zip[0].system.chip.mxu.cols: zip lists must have equal lengths: "
        "system.chip.mxu.rows has 2, system.chip.mxu.cols has 3");
  CHECK(expand_error("zip: {system.chip.mxu.rows: [1]}\n") ==
        "sweep.yaml:1:6: sweep.zip: expected a list of groups, each a mapping of paths to "
        "equal-length lists");
  CHECK(expand_error("[1, 2]\n") ==
        "sweep.yaml:1:1: sweep: expected a mapping of config paths to value lists, got a list");
}

TEST_CASE("sweep: a path outside system./workload. is rejected with a suggestion", "[sweep]") {
  CHECK(expand_error("sytem.chip.clock: [1GHz]\n") ==
        "sweep.yaml:1:1: sweep.sytem.chip.clock: a sweep path must start with system. or "
        "workload. (did you mean 'system'?)");
  CHECK(expand_error("zip:\n"
                     "  - workloads.layers[0].m: [8]\n") ==
        "sweep.yaml:2:5: sweep.workloads.layers[0].m: a sweep path must start with system. or "
        "workload. (did you mean 'workload'?)");
  CHECK(expand_error("chip.clock: [1GHz]\n") ==
        "sweep.yaml:1:1: sweep.chip.clock: a sweep path must start with system. or workload.");
  // The same check runs when only the paths are asked for.
  CHECK_THROWS_AS(swept_paths(config::parse_yaml("chip.clock: [1GHz]\n", "s.yaml")), ConfigError);
}
