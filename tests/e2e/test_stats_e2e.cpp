// End to end: `simrun --describe tpu_chip` lists the chip's stats tree, and every column of the
// /layers and /units tables a run writes is a declared stat of the group the listing names for
// that table, with the same unit, a scope that covers the table, and a description.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"
#include "tests/support/text_table.h"

using namespace systole;
using systole::test::TempDir;

namespace {

struct Listed {
  std::string scope, unit;
};

struct Listing {
  std::map<std::string, Listed> stats;       // instance path -> scope, unit
  std::map<std::string, std::string> rows;   // dataset -> "layer", "group" or "layer x group"
  std::map<std::string, std::string> group;  // dataset -> the first group it reads
};

Listing parse(const std::string& text) {
  Listing l;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto c = test::table_cells(line);
    if (c.size() < 4) continue;
    if (c[0].rfind("chip0.", 0) == 0) l.stats[c[0]] = {c[1], c[2]};
    if (c[0].rfind("/points/<id>/", 0) == 0) {
      l.rows[c[0]] = c[1];
      l.group[c[0]] = c[2].substr(0, c[2].find(','));
    }
  }
  return l;
}

/// Every column of `t` (written as `dataset`) is a stat of the listing's group for it.
void check_table(const Listing& l, const std::string& dataset, const stats::Table& t) {
  INFO(dataset);
  REQUIRE(l.rows.count(dataset) == 1);
  const std::string rows = l.rows.at(dataset);
  const bool per_layer = rows != "group";
  std::set<std::string> keys;  // row keys the table writer adds, not stats
  if (rows == "group" || rows == "layer x group") keys.insert("name");
  if (rows == "layer x group") keys.insert("layer");
  for (const auto& col : t.columns()) {
    INFO(col.name);
    CHECK(!col.description.empty());
    if (keys.count(col.name)) continue;
    const std::string path = l.group.at(dataset) + "." + col.name;
    INFO(path);
    REQUIRE(l.stats.count(path) == 1);
    const Listed& s = l.stats.at(path);
    CHECK(s.unit == (col.unit.empty() ? "-" : col.unit));
    CHECK(s.scope.find(per_layer ? "layer" : "run") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("simrun --describe tpu_chip lists the stats tree beside the parameters", "[e2e][stats]") {
  TempDir dir;
  const auto r = test::simrun("--describe tpu_chip", dir);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("mxu") != std::string::npos);  // the parameters come first
  const Listing l = parse(r.out);
  CHECK(l.stats.size() > 60);
  REQUIRE(l.stats.count("chip0.core<c>.mxu<i>.busy_cycles") == 1);
  CHECK(l.stats.at("chip0.core<c>.mxu<i>.busy_cycles").unit == "cycles");
  CHECK(l.stats.at("chip0.core<c>.mxu<i>.busy_cycles").scope == "run,layer");
  CHECK(l.stats.count("chip0.hbm.stack<s>.ch<c>.row_hit_rate") == 1);
  CHECK(l.stats.count("chip0.total_cycles") == 1);
  CHECK(l.rows.count("/points/<id>/layers") == 1);
  // A part lists its own subtree.
  const auto hbm = test::simrun("--describe hbm", dir);
  REQUIRE(hbm.exit_code == 0);
  const Listing h = parse(hbm.out);
  CHECK(h.stats.count("chip0.hbm.stack<s>.ch<c>.activates") == 1);
  CHECK(h.stats.count("chip0.core<c>.mxu<i>.busy_cycles") == 0);
}

TEST_CASE("every /layers and /units column is a declared stat with unit and description",
          "[e2e][stats]") {
  TempDir dir;
  const Listing l = parse(test::simrun("--describe tpu_chip", dir).out);
  dir.write("two.yaml", "base: " + test::source_dir() +
                            "/configs/presets/tpuv4_chip.yaml\nworkload:\n  layers:\n"
                            "    - {name: a, m: 256, n: 512, k: 1024}\n"
                            "    - {name: b, m: 256, n: 256, k: 512}\n");
  const auto r = test::simrun("two.yaml -q -o out.h5", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 1);
  const auto& p = points[0];
  REQUIRE(p.layers.rows().size() == 2);
  check_table(l, "/points/<id>/layers", p.layers);
  std::set<std::string> seen;
  for (const auto& t : p.units) {
    seen.insert(t.name());
    check_table(l, "/points/<id>/units/" + t.name(), t);
  }
  for (const char* t : {"mxu", "dma", "memory", "mxu_layers", "vmem", "hbm_channel"})
    CHECK(seen.count(t) == 1);
}
