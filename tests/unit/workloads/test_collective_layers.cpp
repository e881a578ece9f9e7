// Collective layers in the workload IR: op, bytes (an expression or a size), group and
// algorithm, and the errors a bad value gives (file, line, YAML path).
#include <catch2/catch.hpp>

#include "sim/config/node.h"
#include "tests/support/config_error.h"
#include "workloads/frontends/yaml_workload.h"

using namespace systole;
using namespace systole::workloads;

namespace {

Workload load(const std::string& yaml) { return load_workload(config::parse_yaml(yaml, "w.yaml")); }

}  // namespace

TEST_CASE("Collective layers parse", "[pod][collective]") {
  const Workload w = load(
      "{params: {mb: 4}, layers: ["
      "{op: all_reduce, bytes: mb * 1048576},"
      "{op: all_gather, bytes: 34MB, group: [y], algorithm: bidir_ring},"
      "{op: reduce_scatter, bytes: 16MiB, group: [y, z], algorithm: ring},"
      "{op: all_to_all, bytes: 1000, group: all}]}");
  REQUIRE(w.layers.size() == 4);
  REQUIRE(w.layers[0].op == LayerOp::kAllReduce);
  REQUIRE(w.layers[0].coll.bytes == 4u * 1048576);
  REQUIRE(w.layers[0].coll.all);
  REQUIRE(w.layers[0].coll.algorithm == CollectiveAlgorithm::kDefault);
  REQUIRE(w.layers[1].op == LayerOp::kAllGather);
  REQUIRE(w.layers[1].coll.bytes == 34000000u);
  REQUIRE(!w.layers[1].coll.all);
  REQUIRE(w.layers[1].coll.axes == std::array<bool, 3>{{false, true, false}});
  REQUIRE(w.layers[1].coll.algorithm == CollectiveAlgorithm::kBidirRing);
  REQUIRE(w.layers[2].coll.bytes == 16u << 20);
  REQUIRE(w.layers[2].coll.axes == std::array<bool, 3>{{false, true, true}});
  REQUIRE(w.layers[3].op == LayerOp::kAllToAll);
  REQUIRE(w.layers[3].coll.all);
  REQUIRE(is_collective_op(w.layers[3].op));
  REQUIRE(!is_vector_op(w.layers[3].op));
  REQUIRE(w.layers[3].macs() == 0);
}

TEST_CASE("Bad collective layers are errors naming file, line and path", "[pod][collective]") {
  using test::config_error;
  const auto err = [](const std::string& layer) {
    return config_error([&] { load("layers:\n  - " + layer + "\n"); });
  };
  CHECK_THAT(err("{op: all_reduce}"), Catch::Contains("w.yaml:2") &&
                                          Catch::Contains("layers[0].bytes") &&
                                          Catch::Contains("missing"));
  CHECK_THAT(err("{op: all_reduce, bytes: -5}"), Catch::Contains("layers[0].bytes"));
  CHECK_THAT(err("{op: all_reduce, bytes: 8, group: [w]}"),
             Catch::Contains("layers[0].group[0]") && Catch::Contains("unknown group axis 'w'"));
  CHECK_THAT(err("{op: all_reduce, bytes: 8, group: [x, x]}"),
             Catch::Contains("layers[0].group[1]") && Catch::Contains("named twice"));
  CHECK_THAT(err("{op: all_reduce, bytes: 8, algorithm: tree}"),
             Catch::Contains("layers[0].algorithm") && Catch::Contains("tree"));
  CHECK_THAT(err("{op: allreduce, bytes: 8}"),
             Catch::Contains("layers[0].op") && Catch::Contains("all_reduce"));
  CHECK_THAT(err("{op: all_gather, bytes: 8, group: []}"), Catch::Contains("layers[0].group"));
}
