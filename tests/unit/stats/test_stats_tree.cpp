// The typed stats tree: declaring stats and groups, accumulating per-layer counters, visiting,
// the tables built from it, and the errors a wrong declaration raises.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/stats/stat_tables.h"
#include "sim/stats/stats_tree.h"

using namespace systole;
using namespace systole::stats;

namespace {

/// chip0 with two cores of one "unit" each: a per-layer counter and a run-only formula.
struct Tree {
  StatGroup root{"chip0", "chip"};
  LayerCounter<std::int64_t>* ops[2] = {};
  Tree() {
    root.formula({"total", "cycles", "cycles of the run", ColumnType::kInt, StatScope::kRunOnly},
                 [](std::size_t) { return std::int64_t{100}; });
    for (int c = 0; c < 2; ++c) {
      StatGroup& u = root.group("core" + std::to_string(c), "core").group("unit", "unit");
      ops[c] = &u.counter({"ops", "", "operations"});
      u.formula({"double_ops", "", "2 x ops", ColumnType::kFloat}, [o = ops[c]](std::size_t s) {
        return 2.0 * static_cast<double>(s == kRun ? o->total() : o->at(s));
      });
      u.formula({"label", "", "run-only text", ColumnType::kString, StatScope::kRunOnly},
                [c](std::size_t) -> Cell { return "u" + std::to_string(c); });
    }
    root.resize_layers(3);
  }
};

TableSpec spec(const char* table, const char* kind, TableSpec::Rows rows = TableSpec::Rows::kGroups,
               const char* name_below = "") {
  return {table, kind, "a test table", rows, name_below, "unit"};
}

}  // namespace

TEST_CASE("stats tree: declare, accumulate per layer, read run and layer values", "[stats]") {
  Tree t;
  t.ops[0]->add(0, 5);
  t.ops[0]->add(2, 7);
  t.ops[0]->add(2, 1);
  t.ops[1]->add(1, 4);
  const StatGroup* u0 = t.root.find_group("core0")->find_group("unit");
  REQUIRE(u0);
  CHECK(u0->path() == "chip0.core0.unit");
  CHECK(u0->path_below(t.root) == "core0.unit");
  CHECK(std::get<std::int64_t>(u0->find("ops")->value(0)) == 5);
  CHECK(std::get<std::int64_t>(u0->find("ops")->value(1)) == 0);
  CHECK(std::get<std::int64_t>(u0->find("ops")->value(2)) == 8);
  CHECK(std::get<std::int64_t>(u0->find("ops")->value(kRun)) == 13);
  CHECK(std::get<double>(u0->find("double_ops")->value(kRun)) == 26.0);
  // A run-only stat has no per-layer value.
  CHECK_THROWS_AS(u0->find("label")->value(0), SimError);
  CHECK_THROWS_AS(t.root.find("total")->value(1), SimError);
  // resize_layers zeroes the counters for the next run.
  t.root.resize_layers(3);
  CHECK(std::get<std::int64_t>(u0->find("ops")->value(kRun)) == 0);
}

TEST_CASE("stats tree: visitors see groups depth first, stats before children", "[stats]") {
  Tree t;
  struct Names : StatVisitor {
    std::vector<std::string> seen;
    void begin_group(const StatGroup& g) override { seen.push_back("<" + g.path()); }
    void stat(const StatGroup& g, const Stat& s) override {
      seen.push_back(g.path() + "." + s.name());
    }
    void end_group(const StatGroup& g) override { seen.push_back(">" + g.name()); }
  } v;
  t.root.accept(v);
  const std::vector<std::string> want = {"<chip0",
                                         "chip0.total",
                                         "<chip0.core0",
                                         "<chip0.core0.unit",
                                         "chip0.core0.unit.ops",
                                         "chip0.core0.unit.double_ops",
                                         "chip0.core0.unit.label",
                                         ">unit",
                                         ">core0",
                                         "<chip0.core1",
                                         "<chip0.core1.unit",
                                         "chip0.core1.unit.ops",
                                         "chip0.core1.unit.double_ops",
                                         "chip0.core1.unit.label",
                                         ">unit",
                                         ">core1",
                                         ">chip0"};
  CHECK(v.seen == want);
  CHECK(groups_of_kind(t.root, "unit").size() == 2);
  CHECK(groups_of_kind(t.root, "nothing").empty());
}

TEST_CASE("stats tree: duplicate and malformed names are errors", "[stats]") {
  StatGroup root("chip0", "chip");
  root.counter({"ops", "", "operations"});
  CHECK_THROWS_AS(root.counter({"ops", "", "again"}), SimError);
  CHECK_THROWS_AS(root.formula({"ops", "", "again"}, [](std::size_t) { return std::int64_t{0}; }),
                  SimError);
  CHECK_THROWS_AS(root.group("ops", "unit"), SimError);  // a group may not share a stat's name
  root.group("core0", "core");
  CHECK_THROWS_AS(root.group("core0", "core"), SimError);
  CHECK_THROWS_AS(root.group("a.b", "core"), SimError);
  CHECK_THROWS_AS(root.counter({"x.y", "", "dotted"}), SimError);
  // A formula that returns the wrong type is caught when read.
  const Stat& bad = root.formula({"bad", "", "declared int, returns text"},
                                 [](std::size_t) -> Cell { return std::string("x"); });
  CHECK_THROWS_AS(bad.value(kRun), SimError);
}

TEST_CASE("stats tree: names stay findable and unique among many siblings", "[stats]") {
  // A pod declares tens of thousands of link groups under one parent (found by name index).
  StatGroup root("pod", "pod");
  std::vector<const StatGroup*> made;
  for (int i = 0; i < 3000; ++i) made.push_back(&root.group("link" + std::to_string(i), "link"));
  root.counter({"ops", "", "operations"});
  for (int i = 0; i < 3000; i += 7) {
    CHECK(root.find_group("link" + std::to_string(i)) == made[static_cast<std::size_t>(i)]);
    CHECK(root.find("link" + std::to_string(i)) == nullptr);
  }
  CHECK(root.find_group("link3000") == nullptr);
  CHECK(root.find("ops") == root.stats().front().get());
  CHECK_THROWS_AS(root.group("link2999", "link"), SimError);
  CHECK_THROWS_AS(root.counter({"link0", "", "a stat named like a group"}), SimError);
  CHECK_THROWS_AS(root.group("ops", "unit"), SimError);
  // A refused declaration leaves nothing behind.
  CHECK_THROWS_AS(root.counter({"x.y", "", "dotted"}), SimError);
  CHECK(root.find("x.y") == nullptr);
  CHECK(root.stats().size() == 1);
  CHECK(root.groups().size() == 3000);
  CHECK(root.groups()[1234]->name() == "link1234");  // declaration order kept
}

TEST_CASE("stats tables: columns are the declared stats with unit and description", "[stats]") {
  Tree t;
  t.ops[0]->add(1, 3);
  t.ops[1]->add(2, 9);
  const std::vector<std::string> layers = {"l0", "l1", "l2"};

  const Table units = make_table(t.root, spec("unit", "unit"), layers);
  REQUIRE(units.rows().size() == 2);
  REQUIRE(units.columns().size() == 4);  // name + the run stats
  CHECK(units.columns()[0].name == "name");
  CHECK(units.columns()[1].name == "ops");
  CHECK(units.columns()[1].description == "operations");
  CHECK(units.columns()[2].unit.empty());
  CHECK(units.get_string(1, "name") == "chip0.core1.unit");  // the instance path
  CHECK(units.get_int(1, "ops") == 9);
  CHECK(units.get_string(1, "label") == "u1");

  const Table per =
      make_table(t.root, spec("unit_layers", "unit", TableSpec::Rows::kLayersByGroups), layers);
  REQUIRE(per.rows().size() == 6);
  CHECK(per.column("label") < 0);  // run-only
  CHECK(per.get_string(2, "layer") == "l1");
  CHECK(per.get_string(2, "name") == "chip0.core0.unit");
  CHECK(per.get_int(2, "ops") == 3);
  CHECK(per.get_number(5, "double_ops") == 18.0);

  // Rows named below the nearest enclosing group of a kind.
  const Table below =
      make_table(t.root, spec("u", "unit", TableSpec::Rows::kGroups, "core"), layers);
  CHECK(below.get_string(0, "name") == "unit");

  const Record run = run_record(t.root);
  REQUIRE(run.columns().size() == 1);
  CHECK(run.columns()[0].unit == "cycles");
  CHECK(std::get<std::int64_t>(run.cells()[0]) == 100);

  // A per-layer table of one group needs exactly one group of the kind.
  CHECK_THROWS_AS(make_table(t.root, spec("x", "unit", TableSpec::Rows::kLayers), layers),
                  SimError);
}

TEST_CASE("stats tables: groups of one kind must declare the same stats", "[stats]") {
  StatGroup root("chip0", "chip");
  root.group("a", "unit").counter({"ops", "", "operations"});
  root.group("b", "unit").counter({"bytes", "B", "bytes"});
  root.resize_layers(1);
  CHECK_THROWS_AS(make_table(root, spec("unit", "unit"), {"l0"}), SimError);
}

TEST_CASE("stats listing names every stat with its path, scope and unit", "[stats]") {
  Tree t;
  const std::string s = describe_stats(t.root, {spec("unit", "unit")});
  CHECK(s.find("chip0.core1.unit.double_ops") != std::string::npos);
  CHECK(s.find("chip0.total") != std::string::npos);
  CHECK(s.find("run,layer") != std::string::npos);
  CHECK(s.find("/points/<id>/units/unit") != std::string::npos);
}
