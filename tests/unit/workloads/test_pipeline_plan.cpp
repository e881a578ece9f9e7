// Pipeline stages (workloads/mapping/parallel_plan.h, split_stages and partition_pipeline): the
// split is contiguous, never empty, conserves MACs and minimises the largest stage (checked
// against every contiguous split of small random workloads); micro-batches split the batch.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "workloads/frontends/yaml_workload.h"
#include "workloads/mapping/parallel_plan.h"

using namespace systole;
using namespace systole::workloads;

namespace {

std::uint64_t macs_of(const Layer& l) { return l.macs() * static_cast<std::uint64_t>(l.repeat); }

Layer gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t repeat = 1) {
  Layer l;
  l.name = fmt::format("g{}x{}x{}", m, n, k);
  l.m = m;
  l.n = n;
  l.k = k;
  l.repeat = repeat;
  return l;
}

Layer norm(std::int64_t rows) {
  Layer l;
  l.name = "norm";
  l.op = LayerOp::kLayerNorm;
  l.vec.rows = rows;
  l.vec.cols = 64;
  return l;
}

/// The smallest largest-stage MACs over every contiguous split of `w` into `p` non-empty stages.
std::uint64_t brute_bottleneck(const std::vector<std::uint64_t>& w, std::size_t p,
                               std::size_t from = 0) {
  if (p == 1) {
    std::uint64_t t = 0;
    for (std::size_t i = from; i < w.size(); ++i) t += w[i];
    return t;
  }
  std::uint64_t best = ~0ull, head = 0;
  for (std::size_t end = from + 1; end + (p - 1) <= w.size(); ++end) {
    head += w[end - 1];
    best = std::min(best, std::max(head, brute_bottleneck(w, p - 1, end)));
  }
  return best;
}

Workload gpt_block(int batch) {
  return load_workload(config::parse_yaml(
      fmt::format("{{file: {}/workloads/gpt3_175b.yaml, params: {{batch: {}, tokens: 256, "
                  "context: 256}}}}",
                  test::source_dir(), batch),
      "test.yaml"));
}

}  // namespace

TEST_CASE("Pipeline stages are contiguous, never empty, MAC-conserving and optimal",
          "[pod][pipeline]") {
  std::mt19937 rng(1811);
  for (int c = 0; c < 200; ++c) {
    const auto n = static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 9)(rng));
    std::vector<Layer> layers;
    std::vector<std::uint64_t> w;
    for (std::size_t i = 0; i < n; ++i) {
      const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
      const auto d = [&] {
        return std::int64_t{16} << std::uniform_int_distribution<int>(0, 4)(rng);
      };
      layers.push_back(kind == 0 ? norm(d()) : gemm(d(), d(), d(), kind == 3 ? 3 : 1));
      w.push_back(macs_of(layers.back()));
    }
    const auto p = static_cast<std::int64_t>(std::uniform_int_distribution<std::size_t>(1, n)(rng));
    const auto st = split_stages(layers, p);
    REQUIRE(st.size() == static_cast<std::size_t>(p));
    std::uint64_t total = 0, worst = 0;
    std::size_t at = 0;
    for (const auto& s : st) {
      REQUIRE(s.first == at);    // contiguous
      REQUIRE(s.end > s.first);  // never empty
      std::uint64_t m = 0;
      for (std::size_t i = s.first; i < s.end; ++i) m += w[i];
      REQUIRE(s.macs == m);
      total += m;
      worst = std::max(worst, m);
      at = s.end;
    }
    REQUIRE(at == n);
    std::uint64_t all = 0;
    for (auto x : w) all += x;
    REQUIRE(total == all);                                               // conserved
    REQUIRE(worst == brute_bottleneck(w, static_cast<std::size_t>(p)));  // balanced: optimal
  }
}

TEST_CASE("Equal layers split into equal stages, boundaries are the earliest optimal ones",
          "[pod][pipeline]") {
  const std::vector<Layer> four(4, gemm(64, 64, 64));
  const auto st = split_stages(four, 2);
  REQUIRE(st[0].first == 0);
  REQUIRE(st[0].end == 2);
  REQUIRE(st[0].macs == st[1].macs);
  // Zero-MAC layers: [norm, gemm, norm, gemm] in 2 stages: the second stage begins at the
  // earliest boundary that keeps the bottleneck (one GEMM): layer 2.
  const std::vector<Layer> mixed{norm(64), gemm(64, 64, 64), norm(64), gemm(64, 64, 64)};
  const auto m = split_stages(mixed, 2);
  REQUIRE(m[1].first == 2);
}

TEST_CASE("Fewer layers than stages is an error", "[pod][pipeline]") {
  const std::vector<Layer> two(2, gemm(64, 64, 64));
  REQUIRE_THROWS_WITH(split_stages(two, 3), Catch::Contains("3 pipeline stages") &&
                                                Catch::Contains("the workload has 2"));
  REQUIRE_THROWS(split_stages(two, 0));
}

TEST_CASE("A pipelined GPT-3 block: micro-batches split the batch, stages keep their collectives",
          "[pod][pipeline]") {
  const Workload w = gpt_block(8);
  const std::array<bool, 3> kX{{true, false, false}};
  const PipelinePlan p = partition_pipeline(w.layers, {1, 4, 2}, 4, kX);
  REQUIRE(p.stages.size() == 2);
  REQUIRE(p.microbatches == 4);
  std::uint64_t macs = 0;
  std::size_t layers = 0;
  for (const auto& s : p.stages) {
    for (const auto& l : s.plan.layers) {
      macs += macs_of(l.layer);
      REQUIRE((l.source >= s.range.first && l.source < s.range.end));
      if (l.layer.op == LayerOp::kAttention) REQUIRE(l.layer.attn.batch == 2);  // 8 / 4
      if (l.layer.op == LayerOp::kAllReduce) REQUIRE(l.inserted);
    }
    layers += s.plan.layers.size();
  }
  // Every chip of a stage computes 1 / (T M) of the stage's MACs per micro-batch.
  std::uint64_t whole = 0;
  for (const auto& l : w.layers) whole += macs_of(l);
  REQUIRE(macs * 4 * 4 == whole);
  REQUIRE(layers == partition(w.layers, {4, 4, 1}, kX).layers.size());
  // The first stage sends its last layer's per-chip output; the last sends nothing.
  REQUIRE(p.stages[0].send_bytes == output_bytes(p.stages[0].plan.layers.back().layer));
  REQUIRE(p.stages[0].send_bytes > 0);
  REQUIRE(p.stages[1].send_bytes == 0);
  // Micro-batches that do not divide the batch name the layer and the split.
  REQUIRE_THROWS_WITH(partition_pipeline(w.layers, {1, 4, 2}, 3, kX), Catch::Contains("data = 3"));
}

TEST_CASE("A workload's blocks param stacks its layer list", "[pod][pipeline][workload]") {
  const auto load = [](const std::string& params) {
    return load_workload(
        config::parse_yaml(fmt::format("{{file: {}/workloads/gpt3_175b.yaml, params: {{{}}}}}",
                                       test::source_dir(), params),
                           "test.yaml"));
  };
  const Workload one = load("tokens: 64, context: 64");
  const Workload three = load("tokens: 64, context: 64, blocks: 3");
  REQUIRE(one.layers.size() == 10);
  REQUIRE(one.layers.front().name == "attn_norm");  // the default is unchanged
  REQUIRE(three.layers.size() == 30);
  std::uint64_t m1 = 0, m3 = 0;
  for (const auto& l : one.layers) m1 += macs_of(l);
  for (const auto& l : three.layers) m3 += macs_of(l);
  REQUIRE(m3 == 3 * m1);
  for (std::size_t i = 0; i < 30; ++i)
    REQUIRE(three.layers[i].name == fmt::format("b{}.{}", i / 10, one.layers[i % 10].name));
  // An inline workload: inputs name layers of the same block; `input` is the block before.
  const Workload w = load_workload(
      config::parse_yaml("{params: {n: 2}, blocks: n, layers: [{name: a, m: 8, n: 8, k: 8}, "
                         "{name: r, op: add, rows: 8, cols: 8, inputs: [a, input]}]}",
                         "w.yaml"));
  REQUIRE(w.layers.size() == 4);
  REQUIRE(w.layers[1].inputs == std::vector<std::string>{"b0.a", "input"});
  REQUIRE(w.layers[3].inputs == std::vector<std::string>{"b1.a", "b0.r"});
  REQUIRE_THROWS_WITH(load("blocks: 0"), Catch::Contains("params.blocks"));
  REQUIRE_THROWS_WITH(
      load_workload(config::parse_yaml("{blocks: 0, layers: [{name: a, m: 8, n: 8, k: 8}]}", "w")),
      Catch::Contains("blocks = 0"));
}
