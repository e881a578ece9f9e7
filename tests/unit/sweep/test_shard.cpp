// Shards and stable point ids: --shard parsing, the Slurm array's shard, shard file names, a
// disjoint and complete split, and point keys that depend on the swept values only.
#include "sim/sweep/shard.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "sim/sweep/expand.h"

using namespace systole;
using systole::config::Node;
using systole::sweep::Shard;

namespace {

std::string shard_error(const std::string& text) {
  try {
    sweep::parse_shard(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

sweep::Env env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

config::Experiment experiment(const std::string& sweep_yaml) {
  config::Experiment ex;
  ex.root = config::parse_yaml(
      "system: {kind: tpu_chip, chip: {mxu: {rows: 128, cols: 128}}}\n"
      "workload: {layers: [{m: 8, n: 8, k: 8}]}\n",
      "exp.yaml");
  ex.sweep = config::parse_yaml(sweep_yaml, "exp.yaml");
  return ex;
}

}  // namespace

TEST_CASE("simrun --shard I/N: shards count from 0, malformed or out-of-range values are errors",
          "[sweep]") {
  const Shard s = sweep::parse_shard("2/5");
  CHECK(s.index == 2);
  CHECK(s.count == 5);
  CHECK(s.split());
  CHECK(s.text() == "2/5");
  CHECK_FALSE(sweep::parse_shard("0/1").split());
  CHECK_THAT(shard_error("5/5"), Catch::Contains("0..4"));
  CHECK_THAT(shard_error("1"), Catch::Contains("expected I/N"));
  CHECK_THAT(shard_error("a/3"), Catch::Contains("expected I/N"));
  CHECK_THAT(shard_error("1/0"), Catch::Contains("expected I/N"));
  CHECK_THAT(shard_error("-1/3"), Catch::Contains("--shard"));
}

TEST_CASE("shards split the points disjointly and completely", "[sweep]") {
  for (int n : {1, 2, 3, 7}) {
    std::vector<int> owners(100, 0);
    for (int i = 0; i < n; ++i)
      for (size_t p = 0; p < owners.size(); ++p) owners[p] += Shard{i, n}.owns(p);
    for (int o : owners) CHECK(o == 1);
  }
}

TEST_CASE("a Slurm array task finds its shard from SLURM_ARRAY_TASK_*", "[sweep]") {
  CHECK_FALSE(sweep::shard_from_slurm(env_of({})));
  CHECK_FALSE(sweep::shard_from_slurm(
      env_of({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "1"}})));
  auto s = sweep::shard_from_slurm(env_of({{"SLURM_ARRAY_TASK_ID", "2"},
                                           {"SLURM_ARRAY_TASK_COUNT", "4"},
                                           {"SLURM_ARRAY_TASK_MIN", "0"}}));
  REQUIRE(s);
  CHECK(s->text() == "2/4");
  // --array=1-4: ids from 1.
  s = sweep::shard_from_slurm(env_of({{"SLURM_ARRAY_TASK_ID", "1"},
                                      {"SLURM_ARRAY_TASK_COUNT", "4"},
                                      {"SLURM_ARRAY_TASK_MIN", "1"}}));
  REQUIRE(s);
  CHECK(s->text() == "0/4");
  // --array=10-40:10
  s = sweep::shard_from_slurm(env_of({{"SLURM_ARRAY_TASK_ID", "30"},
                                      {"SLURM_ARRAY_TASK_COUNT", "4"},
                                      {"SLURM_ARRAY_TASK_MIN", "10"},
                                      {"SLURM_ARRAY_TASK_STEP", "10"}}));
  REQUIRE(s);
  CHECK(s->text() == "2/4");
  // --array=1,5,9: not a range; the user must say which shard.
  CHECK_THROWS_WITH(sweep::shard_from_slurm(env_of({{"SLURM_ARRAY_TASK_ID", "9"},
                                                    {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                    {"SLURM_ARRAY_TASK_MIN", "1"}})),
                    Catch::Contains("--shard I/N"));
}

TEST_CASE("shard files are named after the results file", "[sweep]") {
  CHECK(sweep::shard_file("results.h5", {1, 3}) == "results.shard-1-of-3.h5");
  CHECK(sweep::shard_file("out/run.v2.h5", {0, 2}) == "out/run.v2.shard-0-of-2.h5");
  CHECK(sweep::shard_file("a.dir/results", {0, 2}) == "a.dir/results.shard-0-of-2");
  CHECK(sweep::shard_file(".hidden", {0, 2}) == ".hidden.shard-0-of-2");
  CHECK(sweep::shard_file("results.h5", {0, 1}) == "results.h5");
}

TEST_CASE("a point's key depends on its swept values only, not on the order or the index",
          "[sweep]") {
  const auto a =
      sweep::expand(experiment("system.chip.mxu.rows: [64, 128]\n"
                               "system.chip.mxu.cols: [32, 256]\n"));
  const auto b =
      sweep::expand(experiment("system.chip.mxu.cols: [256, 32]\n"
                               "system.chip.mxu.rows: [128, 64, 512]\n"));
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 6);
  std::map<std::string, std::string> key_of;  // label (sorted values) -> key
  auto norm = [](const sweep::Point& p) {
    std::set<std::string> parts;
    for (const auto& [k, v] : p.assignments) parts.insert(k + "=" + v.text());
    return std::string(parts.begin()->c_str()) + ";" + parts.rbegin()->c_str();
  };
  for (const auto& p : a) {
    CHECK(p.key.size() == 12);
    CHECK(p.key.find_first_not_of("0123456789abcdef") == std::string::npos);
    key_of[norm(p)] = p.key;
  }
  size_t matched = 0;
  for (const auto& p : b) {
    const auto it = key_of.find(norm(p));
    if (it == key_of.end()) continue;
    CHECK(it->second == p.key);
    ++matched;
  }
  CHECK(matched == 4);
  std::set<std::string> keys;
  for (const auto& p : b) keys.insert(p.key);
  CHECK(keys.size() == b.size());
  // The canonical text is documented: sorted "path=value" lines.
  CHECK(sweep::point_key({{"b", Node::scalar("2")}, {"a", Node::scalar("1")}}) ==
        sweep::point_key({{"a", Node::scalar("1")}, {"b", Node::scalar("2")}}));
  CHECK(sweep::point_key({{"a", Node::scalar("1")}}) !=
        sweep::point_key({{"a", Node::scalar("2")}}));
}

TEST_CASE("a sweep list that repeats a value is an error (a point would run twice)", "[sweep]") {
  CHECK_THROWS_WITH(sweep::expand(experiment("system.chip.mxu.rows: [64, 128, 64]\n")),
                    Catch::Contains("64 is listed twice"));
  CHECK_THROWS_WITH(sweep::expand(experiment("zip:\n  - {system.chip.mxu.rows: [64, 64], "
                                             "system.chip.mxu.cols: [8, 8]}\n")),
                    Catch::Contains("listed twice"));
  CHECK(sweep::expand(experiment("zip:\n  - {system.chip.mxu.rows: [64, 64], "
                                 "system.chip.mxu.cols: [8, 16]}\n"))
            .size() == 2);
}

TEST_CASE("count_points counts without building, saturating on huge grids", "[sweep]") {
  CHECK(sweep::count_points(experiment("system.chip.mxu.rows: [1, 2, 3]\n"
                                       "system.chip.mxu.cols: [1, 2]\n")) == 6);
  std::string big;
  for (int i = 0; i < 8; ++i) {
    big += "system.p" + std::to_string(i) + ": [";
    for (int v = 0; v < 300; ++v) big += (v ? ", " : "") + std::to_string(v);
    big += "]\n";
  }
  CHECK(sweep::count_points(experiment(big)) == SIZE_MAX);  // 300^8 > 2^64
}

TEST_CASE("a shard's point count is the number of points it owns", "[unit][shard]") {
  for (int n = 1; n <= 7; ++n)
    for (int i = 0; i < n; ++i)
      for (size_t total = 0; total <= 30; ++total) {
        const systole::sweep::Shard s{i, n};
        size_t owned = 0;
        for (size_t p = 0; p < total; ++p) owned += s.owns(p);
        CHECK(s.points_of(total) == owned);
      }
}
