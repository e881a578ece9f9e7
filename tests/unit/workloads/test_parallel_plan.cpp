// Partitioning a workload over a slice (workloads/mapping/parallel_plan.h): Megatron splits are
// exact, FLOPs and weights are conserved across the chips, collectives are inserted where the
// row-split GEMMs leave partial sums.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <random>

#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "workloads/frontends/yaml_workload.h"
#include "workloads/mapping/parallel_plan.h"

using namespace systole;
using namespace systole::workloads;

namespace {

Workload gpt_block(int batch, int tokens) {
  return load_workload(config::parse_yaml(
      fmt::format("{{file: {}/workloads/gpt3_175b.yaml, params: {{batch: {}, tokens: {}, "
                  "context: {}}}}}",
                  test::source_dir(), batch, tokens, tokens),
      "test.yaml"));
}

const std::array<bool, 3> kX{{true, false, false}};

std::uint64_t total_macs(const std::vector<ParallelLayer>& ls) {
  std::uint64_t t = 0;
  for (const auto& l : ls) t += l.layer.macs() * static_cast<std::uint64_t>(l.layer.repeat);
  return t;
}

}  // namespace

TEST_CASE("Megatron splits of a GPT-3 block are exact", "[pod][partition]") {
  const Workload w = gpt_block(1, 2048);
  const ParallelPlan p = partition(w.layers, {1, 8, 1}, kX);
  std::map<std::string, const ParallelLayer*> by;
  for (const auto& l : p.layers) by[l.layer.name] = &l;
  // Column splits: QKV and MLP-up keep k, n / 8.
  REQUIRE(by.at("qkv_proj")->layer.n == 3 * 12288 / 8);
  REQUIRE(by.at("qkv_proj")->layer.k == 12288);
  REQUIRE(by.at("mlp_up")->layer.n == 4 * 12288 / 8);
  // Row splits: attention-out and MLP-down keep n, k / 8, each followed by an all-reduce of its
  // whole output (2048 x 12288 bf16 = 50,331,648 B) over the tensor axes.
  for (const char* row : {"out_proj", "mlp_down"}) {
    const Layer& g = by.at(row)->layer;
    REQUIRE(g.n == 12288);
    REQUIRE(g.k == (std::string(row) == "out_proj" ? 12288 : 4 * 12288) / 8);
    const ParallelLayer& ar = *by.at(std::string(row) + ".all_reduce");
    REQUIRE(ar.inserted);
    REQUIRE(ar.layer.op == LayerOp::kAllReduce);
    REQUIRE(ar.layer.coll.bytes == 2048ull * 12288 * 2);
    REQUIRE(!ar.layer.coll.all);
    REQUIRE(ar.layer.coll.axes == kX);
  }
  REQUIRE(by.at("attention")->layer.attn.heads == 12);
  REQUIRE(by.at("attention")->layer.attn.kv_heads == 12);
  REQUIRE(by.at("mlp_gelu")->layer.vec.cols == 4 * 12288 / 8);
  // Norms and residuals work on the whole (all-reduced) activations.
  REQUIRE(by.at("attn_norm")->layer.vec.cols == 12288);
  REQUIRE(by.at("attn_residual")->layer.vec.cols == 12288);
  // Exactly two collectives, each right after its row-split GEMM, read by the residual add.
  int collectives = 0;
  for (size_t i = 0; i < p.layers.size(); ++i)
    if (is_collective_op(p.layers[i].layer.op)) {
      ++collectives;
      REQUIRE(p.layers[i - 1].split.rfind("row", 0) == 0);
    }
  REQUIRE(collectives == 2);
  const auto from = producers(p.chip_layers());
  for (size_t i = 0; i < p.layers.size(); ++i)
    if (p.layers[i].layer.name == "attn_residual")
      REQUIRE(p.layers[from[i].front()].layer.name == "out_proj.all_reduce");
}

TEST_CASE("FLOPs and weights are conserved across the chips", "[pod][partition]") {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 40; ++trial) {
    const int t = 1 << std::uniform_int_distribution<int>(0, 4)(rng);  // 1..16
    const int d = 1 << std::uniform_int_distribution<int>(0, 3)(rng);  // 1..8
    const Workload w = gpt_block(d * std::uniform_int_distribution<int>(1, 2)(rng),
                                 128 * std::uniform_int_distribution<int>(1, 4)(rng));
    const ParallelPlan whole = partition(w.layers, {1, 1, 1}, kX);
    const ParallelPlan p = partition(w.layers, {d, t, 1}, kX);
    // Every chip computes 1 / (d t) of the MACs, exactly.
    REQUIRE(total_macs(p.layers) * static_cast<std::uint64_t>(d * t) == total_macs(whole.layers));
    // Weights are split t ways (data-parallel replicas hold copies); norms hold none here.
    std::uint64_t wt = 0, ww = 0;
    for (const auto& l : p.layers) wt += footprint(l.layer).weights;
    for (const auto& l : whole.layers) ww += footprint(l.layer).weights;
    REQUIRE(wt * static_cast<std::uint64_t>(t) == ww);
    // Bytes all-reduced per chip: the row GEMMs' whole outputs (per data shard), twice a block.
    std::uint64_t ar = 0;
    for (const auto& l : p.layers)
      if (l.layer.op == LayerOp::kAllReduce) ar += l.layer.coll.bytes;
    const auto rows = static_cast<std::uint64_t>(w.layers[1].rows());
    REQUIRE(ar == (t == 1 ? 0 : 2 * rows / static_cast<std::uint64_t>(d) * 12288 * 2));
  }
}

TEST_CASE("Splits that do not divide name the layer", "[pod][partition]") {
  const Workload w = gpt_block(1, 2048);
  // 96 heads over 64 chips; a batch of 1 over 2 data-parallel replicas.
  REQUIRE_THROWS_WITH(partition(w.layers, {1, 64, 1}, kX),
                      Catch::Contains("layer 'attention'") && Catch::Contains("heads = 96"));
  REQUIRE_THROWS_WITH(partition(w.layers, {2, 1, 1}, kX),
                      Catch::Contains("layer 'attention'") && Catch::Contains("batch = 1"));
}
