// The `nvlink` section: defaults (an HGX H100), the two HGX presets, and impossible values.
#include <catch2/catch.hpp>

#include "models/nvlink/nvlink_config.h"
#include "sim/config/node.h"
#include "tests/support/paths.h"

using namespace systole;
using namespace systole::models;

namespace {

NvlinkConfig load(std::initializer_list<std::pair<const char*, const char*>> kv) {
  config::Node n = config::Node::map();
  for (const auto& [k, v] : kv) n.set(k, config::Node::scalar(v));
  return NvlinkConfig::schema().load(n, "nvlink");
}

std::string preset(const char* name) { return test::source_dir() + "/configs/presets/" + name; }

}  // namespace

TEST_CASE("NVLink config defaults: an HGX H100 node", "[unit][nvlink]") {
  const NvlinkConfig c = load({});
  CHECK(c.model == NvlinkModel::kFlow);
  CHECK(c.gpus == 8);
  CHECK(c.links_per_gpu == 18);
  CHECK(c.link_bandwidth.value() == 25e9);
  CHECK(c.nvls);
  CHECK(c.gpu_bandwidth() == Approx(18 * 25e9 * 0.783));
}

TEST_CASE("NVLink presets: HGX A100 and HGX H100 with their GPU device presets", "[unit][nvlink]") {
  const NvlinkConfig a = load_nvlink_file(preset("hgx_a100_8.yaml"));
  CHECK(a.links_per_gpu == 12);
  CHECK_FALSE(a.nvls);
  CHECK(a.gpu_bandwidth() == Approx(235e9).epsilon(0.001));  // 12 x 25 GB/s x 0.783
  const NvlinkConfig h = load_nvlink_file(preset("hgx_h100_8.yaml"));
  CHECK(h.links_per_gpu == 18);
  CHECK(h.nvls);
  // The H200 node is the H100's fabric with H200 GPUs: the same NVLink section.
  const NvlinkConfig h2 = load_nvlink_file(preset("hgx_h200_8.yaml"));
  CHECK(h2.links_per_gpu == h.links_per_gpu);
  CHECK(h2.gpu_bandwidth() == h.gpu_bandwidth());
  CHECK(h2.nvls);
  for (const char* f : {"hgx_a100_8.yaml", "hgx_h100_8.yaml", "hgx_h200_8.yaml"}) {
    const config::Node root = config::resolve_bases(config::load_yaml_file(preset(f)));
    // A gpu_node system whose GPU is a gpu_device preset (models/systems/gpu_node).
    const config::Node* sys = root.find("system");
    REQUIRE(sys != nullptr);
    CHECK(config::to_string(*sys->find("kind"), "system.kind") == "gpu_node");
    const config::Node* gpu = sys->find("gpu");
    REQUIRE(gpu != nullptr);
    const config::Node* inner = gpu->find("system");
    REQUIRE(inner != nullptr);
    const config::Node* kind = inner->find("kind");
    REQUIRE(kind != nullptr);
    CHECK(config::to_string(*kind, "system.gpu.system.kind") == "gpu_device");
    // Each node's GPU is its own device preset (the H200's 60 MiB L2, not the H100's 50).
    const std::string l2 = config::to_string(*inner->find("device")->find("l2")->find("capacity"),
                                             "system.gpu.system.device.l2.capacity");
    CHECK(l2 == (std::string(f) == "hgx_h200_8.yaml"   ? "60MiB"
                 : std::string(f) == "hgx_h100_8.yaml" ? "50MiB"
                                                       : "40MiB"));
  }
}

TEST_CASE("NVLink config errors name the key", "[unit][nvlink]") {
  CHECK_THROWS_WITH(load({{"gpus", "1"}}), Catch::Contains("nvlink.gpus"));
  CHECK_THROWS_WITH(load({{"link_efficiency", "1.5"}}), Catch::Contains("nvlink.link_efficiency"));
  CHECK_THROWS_WITH(load({{"nvls", "true"}, {"nvls_efficiency", "0"}}),
                    Catch::Contains("nvlink.nvls_efficiency"));
}
