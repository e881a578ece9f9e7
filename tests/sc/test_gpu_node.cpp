// SystemC testbenches of the gpu_node system: a collective layer takes exactly the time the
// nvlink model's standalone NCCL collective takes (the bench's and the validation's path) on an
// idle node, and a tensor-parallel all-reduce sits in gpu0's stream between the row-split GEMM
// and the next kernel. ctest runs each TEST_CASE in its own process (one elaboration each).
#include <catch2/catch.hpp>

#include "models/nvlink/nccl_collective.h"
#include "models/systems/gpu_node/gpu_node_system.h"
#include "sim/config/node.h"
#include "tests/support/run.h"
#include "workloads/frontends/yaml_workload.h"

using namespace systole;

namespace {

// The HGX preset `name` with `extra` (YAML under system:) merged, as simrun loads it.
models::GpuNodeConfig node(const std::string& name, const std::string& extra = "") {
  config::Node root = config::resolve_bases(config::parse_yaml(
      "base: " + test::source_dir() + "/configs/presets/" + name + "\n", "node.yaml"));
  if (!extra.empty())
    config::merge_into(*root.find("system"), config::parse_yaml(extra, "extra.yaml"));
  return models::GpuNodeConfig::schema().load(models::unwrap_gpu_file(*root.find("system")),
                                              "system");
}

workloads::Workload workload(const std::string& yaml) {
  return workloads::load_workload(config::parse_yaml(yaml, "w.yaml"));
}

}  // namespace

namespace {

void check_standalone_times(const std::string& preset) {
  const models::GpuNodeConfig cfg = node(preset);
  // One after another: each starts on the idle node where the one before it ended.
  const auto w = workload(
      "layers: [{name: ar_big, op: all_reduce, bytes: 64MiB}, "
      "{name: ar_small, op: all_reduce, bytes: 32KiB}, "
      "{name: rs, op: reduce_scatter, bytes: 16MiB}, {name: ag, op: all_gather, bytes: 16MiB}, "
      "{name: a2a, op: all_to_all, bytes: 8MiB}, "
      "{name: ar_ring, op: all_reduce, bytes: 4MiB, algorithm: ring}]");
  // The standalone path: run_nccl on a fresh network of the same node (bench_nvlink, tests).
  std::vector<models::NcclResult> alone;
  for (const auto& l : w.layers) {
    const models::NvSwitchRoutes routes(static_cast<int>(cfg.nvlink.gpus));
    auto net = models::make_nvlink_network(cfg.nvlink, routes);
    models::NcclSpec s;
    s.op = models::nccl_op_of(l.op);
    s.bytes = l.coll.bytes;
    if (l.coll.algorithm == workloads::CollectiveAlgorithm::kRing)
      s.algorithm = models::NcclAlgorithm::kRing;
    alone.push_back(models::run_nccl(*net, routes, cfg.nvlink, s));
  }
  models::GpuNodeSystem sys(cfg);
  const auto r = sys.run(w, {});
  REQUIRE(r.layers.rows().size() == w.layers.size());
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const models::CollectiveResult& a = alone[l].result;
    INFO(preset << " layer " << w.layers[l].name << ": "
                << r.layers.get_number(l, "collective_time") << " s on the node, " << a.time_s
                << " s alone");
    REQUIRE(a.time_s > 0);
    REQUIRE(r.layers.get_number(l, "collective_time") == a.time_s);
    REQUIRE(r.layers.get_number(l, "algbw") == Approx(a.algbw).epsilon(1e-12));
    REQUIRE(r.layers.get_number(l, "busbw") == Approx(a.busbw).epsilon(1e-12));
    REQUIRE(r.layers.get_number(l, "collective_formula_time") == a.formula_s);
    // Nothing computes: all of it is exposed; the layer lasts its collective (whole cycles).
    REQUIRE(r.layers.get_number(l, "exposed_comm_time") == Approx(a.time_s).epsilon(1e-9));
    REQUIRE(r.layers.get_number(l, "time") == Approx(a.time_s).margin(1e-9));
  }
  const bool nvls = cfg.nvlink.nvls;
  CHECK(r.units.at(1).get_string(0, "algorithm") == std::string(nvls ? "nvls" : "ring"));
  CHECK(r.units.at(1).get_string(4, "algorithm") == std::string("direct"));
  CHECK(r.units.at(1).get_string(5, "algorithm") == std::string("ring"));
  // Every trunk carried the same (a symmetric collective on every GPU).
  const stats::Table& links = r.units.at(0);
  REQUIRE(links.rows().size() == 16);
  for (std::size_t i = 0; i < 16; ++i) REQUIRE(links.get_number(i, "bytes") > 0);
}

}  // namespace

// One system run per process (SystemC elaborates once): a test case per node.
TEST_CASE("gpu_node: a collective layer takes the standalone NCCL time on HGX H100",
          "[sc][gpu_node]") {
  check_standalone_times("hgx_h100_8.yaml");
}

TEST_CASE("gpu_node: a collective layer takes the standalone NCCL time on HGX A100",
          "[sc][gpu_node]") {
  check_standalone_times("hgx_a100_8.yaml");
}

TEST_CASE("gpu_node: a tensor-parallel all-reduce runs in the stream between the GEMMs",
          "[sc][gpu_node]") {
  // g1 column-split, g2 row-split (then an all-reduce of its 256 x 2048 bf16 output, 1 MiB
  // per GPU), g3 column-split again: g3's kernels start only after the all-reduce ended.
  const models::GpuNodeConfig cfg =
      node("hgx_h100_8.yaml", "gpu: {device: {hbm: {model: bandwidth}}}\nparallel: {tensor: 8}\n");
  models::GpuNodeSystem sys(cfg);
  const auto w = workload(
      "layers: [{name: g1, m: 256, n: 2048, k: 2048}, {name: g2, m: 256, n: 2048, k: 2048}, "
      "{name: g3, m: 256, n: 2048, k: 2048}]");
  models::RunOptions opt;
  opt.trace = true;
  const auto r = sys.run(w, opt);
  REQUIRE(r.layers.rows().size() == 4);
  REQUIRE(r.layers.get_string(2, "layer") == "g2.all_reduce");
  REQUIRE(r.layers.get_string(2, "op") == "all_reduce");
  REQUIRE(r.layers.get_number(2, "collective_bytes") == 256.0 * 2048 * 2);
  REQUIRE(r.layers.get_number(2, "collective_time") > 0);
  REQUIRE(r.layers.get_number(1, "collective_time") == 0);
  std::int64_t kind_coll = -1;
  for (std::size_t i = 0; i < r.trace.kinds.size(); ++i)
    if (r.trace.kinds[i] == "collective") kind_coll = static_cast<std::int64_t>(i);
  REQUIRE(kind_coll >= 0);
  std::uint64_t g2_end = 0, ar_begin = ~0ull, ar_end = 0, g3_begin = ~0ull;
  for (const auto& e : r.trace.events) {
    if (e.kind == kind_coll) {
      REQUIRE(e.layer == 2);
      ar_begin = std::min(ar_begin, e.begin);
      ar_end = std::max(ar_end, e.end);
    } else if (e.layer == 1) {
      g2_end = std::max(g2_end, e.end);
    } else if (e.layer == 3) {
      g3_begin = std::min(g3_begin, e.begin);
    }
  }
  INFO("g2 ends " << g2_end << ", all-reduce " << ar_begin << "-" << ar_end << ", g3 begins "
                  << g3_begin << " (cycles)");
  REQUIRE(ar_end > ar_begin);
  REQUIRE(ar_begin >= g2_end);
  REQUIRE(g3_begin >= ar_end);
  // The stream is serial: the whole all-reduce is exposed.
  REQUIRE(r.layers.get_number(2, "exposed_comm_time") ==
          Approx(r.layers.get_number(2, "collective_time")).epsilon(1e-9));
}

TEST_CASE("gpu_node: tensor groups of 4 side by side take a 4-GPU node's time", "[sc][gpu_node]") {
  // Two groups of 4 GPUs use disjoint NVLink trunks: each all-reduce must take exactly what it
  // takes alone on a node of 4 GPUs (NCCL choosing for 4 ranks), and every trunk carries it.
  const models::GpuNodeConfig cfg =
      node("hgx_h100_8.yaml", "gpu: {device: {hbm: {model: bandwidth}}}\nparallel: {tensor: 4}\n");
  const auto w = workload(
      "layers: [{name: g1, m: 512, n: 4096, k: 1024}, {name: g2, m: 512, n: 1024, k: 4096}]");
  models::NvlinkConfig four = cfg.nvlink;
  four.gpus = 4;
  const models::NvSwitchRoutes routes(4);
  auto net = models::make_nvlink_network(four, routes);
  models::NcclSpec s;
  s.bytes = 256ull * 1024 * 2;  // g2's output, 256 x 1024 bf16 per GPU (data 2 halves m)
  const models::NcclResult alone = models::run_nccl(*net, routes, four, s);
  models::GpuNodeSystem sys(cfg);
  const auto r = sys.run(w, {});
  REQUIRE(r.layers.rows().size() == 3);
  REQUIRE(r.layers.get_string(2, "layer") == "g2.all_reduce");
  REQUIRE(r.layers.get_int(2, "group_size") == 4);
  REQUIRE(r.layers.get_number(2, "collective_bytes") == static_cast<double>(s.bytes));
  REQUIRE(r.layers.get_number(2, "collective_time") == alone.result.time_s);
  REQUIRE(r.layers.get_number(2, "busbw") == Approx(alone.result.busbw).epsilon(1e-12));
  const stats::Table& links = r.units.at(0);
  for (std::size_t i = 0; i < 16; ++i) REQUIRE(links.get_number(i, "bytes") > 0);
}

TEST_CASE("gpu_node: on the packet-level network a collective takes the standalone time",
          "[sc][gpu_node]") {
  const models::GpuNodeConfig cfg = node("hgx_h100_8.yaml", "nvlink: {model: packet}\n");
  const auto w = workload(
      "layers: [{name: ar, op: all_reduce, bytes: 1MiB}, "
      "{name: ag, op: all_gather, bytes: 256KiB}]");
  models::GpuNodeSystem sys(cfg);
  const auto r = sys.run(w, {});
  for (std::size_t l = 0; l < 2; ++l) {
    const models::NvSwitchRoutes routes(8);
    auto net = models::make_nvlink_network(cfg.nvlink, routes);
    models::NcclSpec s;
    s.op = models::nccl_op_of(w.layers[l].op);
    s.bytes = w.layers[l].coll.bytes;
    const models::NcclResult alone = models::run_nccl(*net, routes, cfg.nvlink, s);
    INFO("layer " << w.layers[l].name);
    REQUIRE(alone.result.time_s > 0);
    REQUIRE(r.layers.get_number(l, "collective_time") == alone.result.time_s);
  }
}
