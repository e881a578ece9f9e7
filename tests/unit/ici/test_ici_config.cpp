// The `ici` section: defaults, shapes, and the errors of impossible topologies.
#include <catch2/catch.hpp>

#include "models/ici/ici_config.h"
#include "sim/config/node.h"

using namespace systole;
using namespace systole::models;

namespace {

IciConfig load(std::initializer_list<std::pair<const char*, const char*>> kv) {
  config::Node n = config::Node::map();
  for (const auto& [k, v] : kv) n.set(k, config::Node::scalar(v));
  return IciConfig::schema().load(n, "ici");
}

std::string error_of(std::initializer_list<std::pair<const char*, const char*>> kv) {
  try {
    load(kv);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("ICI config defaults: a TPU v4 cube", "[unit][ici]") {
  const IciConfig c = load({});
  CHECK(c.model == IciModel::kFlow);
  CHECK(c.topology == IciTopologyKind::kTorus);
  CHECK(c.shape_text() == "4x4x4");
  CHECK(c.chips() == 64);
  CHECK(c.link_bandwidth.value() == 50e9);
  CHECK(c.link_latency.value() == 1'000'000);
  CHECK(c.packet_size.value() == 512);
}

TEST_CASE("ICI config shapes: 1-D, 2-D, 3-D", "[unit][ici]") {
  CHECK(load({{"shape", "8"}}).shape == std::array<std::int64_t, 3>{8, 1, 1});
  CHECK(load({{"shape", "4x2"}}).shape == std::array<std::int64_t, 3>{4, 2, 1});
  CHECK(load({{"shape", "16x16x16"}}).chips() == 4096);
  CHECK(load({{"shape", "4x4x8"}, {"topology", "twisted_torus"}}).topology ==
        IciTopologyKind::kTwistedTorus);
}

TEST_CASE("ICI config errors name the key and the cause", "[unit][ici]") {
  CHECK_THAT(error_of({{"shape", "4x0x4"}}),
             Catch::Contains("ici.shape") && Catch::Contains("dimension 1 of '4x0x4' is 0"));
  CHECK_THAT(error_of({{"shape", "4x4x4x4"}}), Catch::Contains("not a slice shape"));
  CHECK_THAT(error_of({{"shape", "four"}}), Catch::Contains("not a slice shape"));
  CHECK_THAT(error_of({{"shape", "32x16x16"}}),
             Catch::Contains("8192 chips, more than the pod's 4096"));
  CHECK_THAT(error_of({{"shape", "4x4x4"}, {"topology", "twisted_torus"}}),
             Catch::Contains("ici.topology") && Catch::Contains("k x k x 2k"));
  CHECK_THAT(error_of({{"model", "packets"}}), Catch::Contains("packet"));
  CHECK_THAT(error_of({{"credit", "4"}}), Catch::Contains("credits"));
}
