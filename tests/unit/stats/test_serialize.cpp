#include <catch2/catch.hpp>

#include "sim/stats/result.h"

using namespace systole::stats;

TEST_CASE("a point result survives the worker pipe (serialize/deserialize)", "[unit][stats]") {
  PointResult r;
  r.id = 7;
  r.key = "3fa9c01e2b7d";
  r.config_hash = "00aa11bb22cc";
  r.code_version = "0.1.0+abc";
  r.status = "failed";
  r.error = "it broke";
  r.label = "a=1";
  r.assignments = {{"a", "1"}, {"b", "2TB/s"}};
  r.wall_seconds = 1.25;
  r.config_yaml = "system: {}\n";
  r.metrics.i("total_cycles", "cycles", "c", 42).f("time", "s", "t", 4.2e-8).s("x", "d", "y");
  Record l;
  l.s("layer", "name", "g0").i("cycles", "cycles", "simulated", 123).f("util", "", "u", 0.5);
  r.layers.append(l);
  Table u("mxu", "per mxu");
  Record ur;
  ur.s("name", "unit", "core0.mxu0").i("busy_cycles", "cycles", "busy", 9);
  u.append(ur);
  r.units.push_back(u);
  r.trace.enabled = true;
  r.trace.units = {"core0.mxu0", "core0.dma0"};
  r.trace.kinds = {"load", "store", "matmul"};
  r.trace.events.push_back({1, 5, 64, 1, 0, 2});

  const PointResult b = deserialize(serialize(r));
  CHECK(b.id == 7);
  CHECK(b.key == r.key);
  CHECK(b.config_hash == r.config_hash);
  CHECK(b.code_version == r.code_version);
  CHECK(b.status == "failed");
  CHECK(b.error == "it broke");
  CHECK(b.label == "a=1");
  CHECK(b.assignments == r.assignments);
  CHECK(b.wall_seconds == 1.25);
  CHECK(b.config_yaml == r.config_yaml);
  REQUIRE(b.metrics.columns().size() == 3);
  CHECK(std::get<std::int64_t>(b.metrics.cells()[0]) == 42);
  CHECK(b.metrics.columns()[1].unit == "s");
  CHECK(std::get<std::string>(b.metrics.cells()[2]) == "y");
  CHECK(b.layers.get_int(0, "cycles") == 123);
  CHECK(b.layers.get_number(0, "util") == 0.5);
  CHECK(b.layers.columns()[1].description == "simulated");
  REQUIRE(b.units.size() == 1);
  CHECK(b.units[0].name() == "mxu");
  CHECK(b.units[0].get_string(0, "name") == "core0.mxu0");
  REQUIRE(b.trace.events.size() == 1);
  CHECK(b.trace.events[0].end == 5);
  CHECK(b.trace.events[0].bytes == 64);
  CHECK(b.trace.events[0].kind == 2);
  CHECK(b.trace.kinds == r.trace.kinds);
}
