// sweep.sample: random and Latin-hypercube design points over ranges and choices, the same for
// a seed, inside their bounds, with clear errors for malformed specs; and stable point ids.
#include "sim/sweep/sample.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/sweep/expand.h"

using namespace systole;
using systole::config::Node;

namespace {

Node spec(const std::string& yaml) { return config::parse_yaml(yaml, "sample.yaml"); }

std::vector<std::string> texts(const std::vector<Node>& v) {
  std::vector<std::string> out;
  for (const auto& n : v) out.push_back(sweep::value_text(n));
  return out;
}

std::string sample_error(const std::string& yaml) {
  try {
    sweep::sample_axes(spec(yaml));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

double number(const Node& n) {
  ParsedQuantity q;
  std::string why;
  REQUIRE(parse_quantity(n.text(), q, why));
  return q.value;
}

const char* const kAxes =
    "axes:\n"
    "  system.chip.mxu.rows: [64, 512, log]\n"
    "  system.chip.hbm.bandwidth: [1TB/s, 3TB/s, lin]\n"
    "  system.chip.clock: [0.9, 1.9, lin]\n"
    "  workload.params.batch: [1, 64, int]\n"
    "  system.chip.mxu.dataflow: [ws, os, is]\n";

}  // namespace

TEST_CASE("sweep.sample: the same seed draws the same points, another seed others", "[sweep]") {
  for (const char* method : {"random", "lhs"}) {
    const std::string head = std::string("method: ") + method + "\npoints: 40\n";
    const auto a = sweep::sample_axes(spec(head + "seed: 7\n" + kAxes));
    const auto b = sweep::sample_axes(spec(head + "seed: 7\n" + kAxes));
    const auto c = sweep::sample_axes(spec(head + "seed: 8\n" + kAxes));
    REQUIRE(a.paths.size() == 5);
    for (size_t k = 0; k < a.paths.size(); ++k) {
      CHECK(texts(a.values[k]) == texts(b.values[k]));
      if (k < 2) CHECK(texts(a.values[k]) != texts(c.values[k]));  // continuous axes
    }
  }
}

TEST_CASE("sweep.sample: values stay inside their bounds, in the bounds' form", "[sweep]") {
  const auto s =
      sweep::sample_axes(spec(std::string("method: random\npoints: 200\nseed: 3\n") + kAxes));
  REQUIRE(s.repeated == 0);
  for (const auto& v : s.values[0]) {  // rows: integers in [64, 512]
    CHECK(v.text().find_first_not_of("0123456789") == std::string::npos);
    CHECK(std::stol(v.text()) >= 64);
    CHECK(std::stol(v.text()) <= 512);
  }
  for (const auto& v : s.values[1]) {  // bandwidth: TB/s between 1 and 3
    CHECK(v.text().find("TB/s") != std::string::npos);
    CHECK(number(v) >= 1e12);
    CHECK(number(v) <= 3e12);
  }
  for (const auto& v : s.values[2]) {  // real bounds: real values
    CHECK(number(v) >= 0.9);
    CHECK(number(v) <= 1.9);
  }
  std::set<std::string> batches, flows;
  for (const auto& v : s.values[3]) batches.insert(v.text());
  for (const auto& v : s.values[4]) flows.insert(v.text());
  CHECK(batches.size() > 30);  // int draws cover the range
  for (const auto& b : batches) CHECK((std::stol(b) >= 1 && std::stol(b) <= 64));
  CHECK(flows == std::set<std::string>{"ws", "os", "is"});
}

TEST_CASE("sweep.sample: log ranges spread over the decades, lhs hits every stratum", "[sweep]") {
  // Log-uniform on [1, 10000]: a quarter of the points in each decade, for both methods. LHS puts
  // exactly one of 100 points into each 1/100 of the (log) axis.
  const auto lhs = sweep::sample_axes(
      spec("method: lhs\npoints: 100\nseed: 11\naxes: {system.x: [1.0, 10000.0, log]}\n"));
  std::vector<int> strata(100, 0), decades(4, 0);
  for (const auto& v : lhs.values[0]) {
    const double u = std::log10(number(v)) / 4;
    ++strata[std::min(99, static_cast<int>(u * 100))];
    ++decades[std::min(3, static_cast<int>(u * 4))];
  }
  for (int n : strata) CHECK(n == 1);
  for (int n : decades) CHECK(n == 25);
  const auto rnd = sweep::sample_axes(
      spec("method: random\npoints: 2000\nseed: 11\naxes: {system.x: [1.0, 10000.0, log]}\n"));
  std::vector<int> rd(4, 0);
  for (const auto& v : rnd.values[0]) ++rd[std::min(3, static_cast<int>(std::log10(number(v))))];
  for (int n : rd) CHECK(std::abs(n - 500) < 100);  // 500 +- 4.6 sigma
}

TEST_CASE("sweep.sample: repeated draws of small int ranges are dropped and counted", "[sweep]") {
  const auto s =
      sweep::sample_axes(spec("points: 50\nseed: 1\naxes: {workload.params.batch: [1, 4, int]}"));
  CHECK(s.values[0].size() == 4);
  CHECK(s.repeated == 46);
  std::set<std::string> got;
  for (const auto& v : s.values[0]) got.insert(v.text());
  CHECK(got == std::set<std::string>{"1", "2", "3", "4"});
}

TEST_CASE("sweep.sample: malformed specs name the key and say what is expected", "[sweep]") {
  CHECK_THAT(
      sample_error("points: 10\naxes: {system.x: [1, 8, lgo]}"),
      Catch::Contains("sweep.sample.axes.system.x[2]") && Catch::Contains("did you mean 'log'"));
  CHECK_THAT(sample_error("method: sobol\npoints: 10\naxes: {system.x: [1, 8, log]}"),
             Catch::Contains("sweep.sample.method") && Catch::Contains("random"));
  CHECK_THAT(sample_error("points: 10\nseeds: 3\naxes: {system.x: [1, 8, log]}"),
             Catch::Contains("seeds") && Catch::Contains("did you mean 'seed'"));
  CHECK_THAT(sample_error("axes: {system.x: [1, 8, log]}"), Catch::Contains("sweep.sample.points"));
  CHECK_THAT(sample_error("points: 0\naxes: {system.x: [1, 8, log]}"),
             Catch::Contains("sweep.sample.points"));
  CHECK_THAT(sample_error("points: 10"), Catch::Contains("missing 'axes:'"));
  CHECK_THAT(sample_error("points: 10\naxes: {system.x: [8, 1, lin]}"),
             Catch::Contains("is empty"));
  CHECK_THAT(sample_error("points: 10\naxes: {system.x: [0, 8, log]}"),
             Catch::Contains("positive lower bound"));
  CHECK_THAT(sample_error("points: 10\naxes: {system.x: [1.5, 8, int]}"),
             Catch::Contains("integer bounds"));
  CHECK_THAT(sample_error("points: 10\naxes: {system.x: [1GB/s, 8ns, lin]}"),
             Catch::Contains("same dimension"));
  CHECK_THAT(sample_error("points: 10\naxes: {sytem.x: [1, 8, lin]}"),
             Catch::Contains("did you mean 'system'"));
  CHECK_THAT(sample_error("points: 10\naxes: {system.x: 4}"),
             Catch::Contains("expected [lo, hi, log|lin|int] or a list of choices"));
  CHECK_THAT(sample_error("points: 10\naxes: {system.x: [1, 8, log]}"),
             Catch::Contains("<no error>"));
  CHECK_THAT(sample_error("[1, 2]"), Catch::Contains("expected a mapping"));
}

TEST_CASE("a sample is one sweep axis: grid axes multiply it, its paths are swept paths",
          "[sweep]") {
  config::Experiment ex;
  ex.root = config::parse_yaml(
      "system: {kind: tpu_chip, chip: {mxu: {rows: 128}}}\nworkload: {layers: [{m: 8, n: 8, k: "
      "8}]}\n",
      "exp.yaml");
  ex.sweep = config::parse_yaml(
      "workload.params.batch: [1, 8]\n"
      "sample: {method: lhs, points: 5, seed: 2, axes: {system.chip.mxu.rows: [64, 512, log]}}\n",
      "exp.yaml");
  const auto points = sweep::expand(ex);
  REQUIRE(points.size() == 10);
  CHECK(sweep::count_points(ex) == 10);
  CHECK(sweep::swept_paths(ex.sweep) ==
        std::vector<std::string>{"workload.params.batch", "system.chip.mxu.rows"});
  std::set<std::string> keys;
  for (const auto& p : points) keys.insert(p.key);
  CHECK(keys.size() == 10);
  // The same path sampled and gridded is an error.
  ex.sweep = config::parse_yaml(
      "system.chip.mxu.rows: [64, 128]\n"
      "sample: {points: 5, axes: {system.chip.mxu.rows: [64, 512, log]}}\n",
      "exp.yaml");
  CHECK_THROWS_WITH(sweep::expand(ex), Catch::Contains("swept twice"));
}
