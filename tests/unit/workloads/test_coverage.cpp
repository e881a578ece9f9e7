// The mapping computes every output element's full reduction exactly once: for random GEMMs,
// convolutions (grouped, depthwise, strided, padded, dilated) and attention, every
// (output element, reduction index) pair is covered by exactly one MXU tile of the program.
#include <catch2/catch.hpp>

#include <random>

#include "models/systems/tpu_chip/tpu_system_config.h"
#include "sim/config/node.h"
#include "workloads/lowering/tpu_gemm_lowering.h"
#include "workloads/lowering/tpu_layer_lowering.h"
#include "workloads/mapping/layer_plan.h"

using namespace systole;
using workloads::LayerOp;

namespace {

models::TpuChipConfig random_chip(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dim(1, 24), small(1, 3);
  const std::string yaml =
      "chip: {tensor_cores: " + std::to_string(small(rng)) +
      ", mxus_per_core: " + std::to_string(small(rng)) +
      ", mxu: {rows: " + std::to_string(dim(rng)) + ", cols: " + std::to_string(dim(rng)) +
      "}, vmem: {capacity: 64KiB}, dma: {engines: " + std::to_string(small(rng)) + "}}";
  return models::TpuSystemConfig::schema().load(config::parse_yaml(yaml, "chip"), "system").chip;
}

/// How often each (m, n, k) of a GEMM job is computed by the lowered program.
struct Coverage {
  std::int64_t M, N, K;
  std::vector<std::uint8_t> hits;
  Coverage(std::int64_t m, std::int64_t n, std::int64_t k)
      : M(m), N(n), K(k), hits(static_cast<size_t>(m * n * k), 0) {}
  std::uint8_t& at(std::int64_t m, std::int64_t n, std::int64_t k) {
    return hits[static_cast<size_t>((m * N + n) * K + k)];
  }
};

Coverage cover(const models::TpuChipConfig& chip, const workloads::Layer& g) {
  const auto mp = workloads::map_gemm(chip, g);
  const auto prog = workloads::lower_gemm(chip, g, mp);
  Coverage c(g.rows(), g.n, g.k);
  for (const auto& op : prog.ops) {
    if (op.kind != models::OpKind::kMatmul) continue;
    for (std::int64_t m = op.m0; m < op.m0 + op.m; ++m)
      for (std::int64_t n = op.n0; n < op.n0 + op.n; ++n)
        for (std::int64_t k = op.k0; k < op.k0 + op.k; ++k) {
          REQUIRE(m < c.M);
          REQUIRE(n < c.N);
          REQUIRE(k < c.K);
          ++c.at(m, n, k);
        }
  }
  return c;
}

}  // namespace

TEST_CASE("GEMM tiles cover every (m, n, k) exactly once", "[unit][coverage]") {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> dim(1, 90);
  for (int i = 0; i < 200; ++i) {
    const auto chip = random_chip(rng);
    workloads::Layer g;
    g.name = "g";
    g.m = dim(rng);
    g.n = dim(rng);
    g.k = dim(rng);
    INFO("case " << i << " " << g.shape() << " on " << chip.mxu.rows << "x" << chip.mxu.cols);
    auto c = cover(chip, g);
    for (auto h : c.hits) REQUIRE(h == 1);
  }
}

TEST_CASE("convolutions: every output's full reduction is covered exactly once",
          "[unit][coverage]") {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> hw(1, 12), ch(1, 4), rs(1, 4), st(1, 3), pd(0, 2), dl(1, 2);
  int checked = 0;
  for (int i = 0; checked < 150; ++i) {
    workloads::Layer l;
    l.name = "c";
    l.op = LayerOp::kConv2d;
    const std::int64_t groups = ch(rng);
    auto& c = l.conv;
    c = {ch(rng) % 2 + 1,  hw(rng), hw(rng), groups * ch(rng),
         groups * ch(rng), rs(rng), rs(rng), st(rng),
         pd(rng),          dl(rng), groups};
    if (i % 5 == 0) c.k = c.c = c.groups = ch(rng) + 1;  // depthwise
    if (c.p() < 1 || c.q() < 1) continue;
    ++checked;
    const auto chip = random_chip(rng);
    const auto steps =
        workloads::plan_layer(l, workloads::AttentionImpl::kUnfused, chip.vector.ops);
    REQUIRE(steps.size() == 1);
    if (workloads::is_depthwise(c)) {
      // Depthwise runs on the vector unit: one multiply-add per tap of every output element.
      const auto& v = steps[0].vec;
      REQUIRE(steps[0].kind == workloads::Step::Kind::kVector);
      REQUIRE(v.rows == c.n * c.p() * c.q());
      REQUIRE(v.cols == c.k);
      REQUIRE(static_cast<std::uint64_t>(static_cast<double>(v.elements()) * v.ops_per_element) ==
              l.macs());
      continue;
    }
    const auto& job = steps[0].gemm;
    REQUIRE(job.count == c.groups);
    INFO("case " << i << " " << l.shape());
    // The same program runs once per group; the im2col view maps conv indices onto it.
    auto cov = cover(chip, job.gemm);
    const std::int64_t P = c.p(), Q = c.q(), Cg = c.c / c.groups, Kg = c.k / c.groups;
    std::uint64_t pairs = 0;
    for (std::int64_t n = 0; n < c.n; ++n)
      for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t q = 0; q < Q; ++q)
          for (std::int64_t f = 0; f < Kg; ++f)
            for (std::int64_t ci = 0; ci < Cg; ++ci)
              for (std::int64_t r = 0; r < c.r; ++r)
                for (std::int64_t s = 0; s < c.s; ++s) {
                  const std::int64_t m = (n * P + p) * Q + q, k = (ci * c.r + r) * c.s + s;
                  REQUIRE(cov.at(m, f, k) == 1);
                  ++pairs;
                }
    // Nothing else was computed: the tiles hold exactly the conv's MACs of one group.
    std::uint64_t hits = 0;
    for (auto h : cov.hits) hits += h;
    REQUIRE(hits == pairs);
    REQUIRE(hits * static_cast<std::uint64_t>(c.groups) == l.macs());
  }
}

TEST_CASE("attention (MHA, GQA, MQA): scores and outputs are reduced exactly once",
          "[unit][coverage]") {
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> seq(1, 40), hd(1, 24), kvh(1, 3), grp(1, 4);
  for (int i = 0; i < 60; ++i) {
    workloads::Layer l;
    l.name = "a";
    l.op = LayerOp::kAttention;
    const std::int64_t kv = kvh(rng), heads = kv * grp(rng), sq = seq(rng);
    l.attn = {1 + i % 2, heads, kv, sq, sq + seq(rng) - 1, hd(rng), false};
    const auto chip = random_chip(rng);
    const auto steps =
        workloads::plan_layer(l, workloads::AttentionImpl::kUnfused, chip.vector.ops);
    REQUIRE(steps.size() == 3);
    REQUIRE(steps[1].vec.rows == l.attn.batch * heads * sq);  // softmax over every score row
    std::uint64_t macs = 0;
    for (const auto& st : steps) {
      if (st.kind != workloads::Step::Kind::kGemm) continue;
      REQUIRE(st.gemm.count == l.attn.batch * kv);
      auto cov = cover(chip, st.gemm.gemm);
      for (auto h : cov.hits) REQUIRE(h == 1);
      macs += cov.hits.size() * static_cast<std::uint64_t>(st.gemm.count);
    }
    REQUIRE(macs == l.macs());  // QK^T and PV, every head, every sequence
  }
}

TEST_CASE("fused attention: every visible score and output reduction exactly once",
          "[unit][coverage]") {
  std::mt19937_64 rng(14);
  std::uniform_int_distribution<int> seq(1, 300), hd(8, 64), grp(1, 4);
  for (int i = 0; i < 40; ++i) {
    workloads::Layer l;
    l.name = "f";
    l.op = LayerOp::kAttention;
    const std::int64_t heads = grp(rng), sq = i % 3 == 0 ? 1 : seq(rng);
    const bool causal = i % 2 == 0;
    l.attn = {1, heads, 1, sq, sq + (causal ? seq(rng) % 8 : seq(rng)), hd(rng), causal};
    const auto chip = random_chip(rng);
    INFO("case " << i << " " << l.shape());
    const auto low = workloads::lower_layer(chip, l, {workloads::AttentionImpl::kFused, false});
    const std::int64_t rows = l.attn.group() * sq, kv = l.attn.seq_kv;
    std::vector<int> score(static_cast<size_t>(rows * kv), 0),
        pv(static_cast<size_t>(rows * kv), 0);
    // QK^T ops have n0 = key position and k = head_dim; PV ops have k0 = key position and
    // n = head_dim. Tell them apart by their place in the K/V-tile loop: each tile emits its
    // QK^T ops (all with k == d) and then one PV op.
    for (size_t j = 0; j < low.program.ops.size(); ++j) {
      const auto& op = low.program.ops[j];
      if (op.kind != models::OpKind::kMatmul) continue;
      const bool pv_op =
          !op.deps.empty() && low.program.ops[op.deps[0]].kind == models::OpKind::kVector;
      auto& grid = pv_op ? pv : score;
      const std::int64_t key0 = pv_op ? op.k0 : op.n0, keys = pv_op ? op.k : op.n;
      for (std::int64_t r = op.m0; r < op.m0 + op.m; ++r)
        for (std::int64_t k = key0; k < key0 + keys; ++k) {
          REQUIRE(r < rows);
          REQUIRE(k < kv);
          ++grid[static_cast<size_t>(r * kv + k)];
        }
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t last_visible = causal ? kv - sq + r % sq : kv - 1;
      for (std::int64_t k = 0; k < kv; ++k) {
        const auto at = static_cast<size_t>(r * kv + k);
        if (k <= last_visible) {
          REQUIRE(score[at] == 1);  // every visible score computed once
          REQUIRE(pv[at] == 1);     // and folded into its output once
        } else {
          REQUIRE(score[at] <= 1);  // masked scores of a partly visible tile, at most once
          REQUIRE(score[at] == pv[at]);
        }
      }
    }
  }
}

TEST_CASE("fused attention: resident K/V tiles cross HBM once per head", "[unit][coverage]") {
  std::mt19937_64 rng(21);
  std::uniform_int_distribution<int> seq(16, 400), small(1, 3);
  int resident = 0;
  for (int i = 0; i < 40; ++i) {
    workloads::Layer l;
    l.name = "f";
    l.op = LayerOp::kAttention;
    const std::int64_t kv_heads = small(rng), sq = seq(rng), d = 32;
    const bool causal = i % 2 == 0;
    l.attn = {small(rng), kv_heads * small(rng), kv_heads, sq, causal ? sq : seq(rng), d, causal};
    const auto chip = random_chip(rng);
    INFO("case " << i << " " << l.shape());
    const auto low = workloads::lower_layer(chip, l, {workloads::AttentionImpl::kFused, false});
    INFO(low.tile);
    std::uint64_t loaded = 0, stored = 0;
    for (std::uint32_t j = 0; j < low.program.ops.size(); ++j) {
      const auto& op = low.program.ops[j];
      for (auto dep : op.deps) REQUIRE(dep < j);
      if (op.kind == models::OpKind::kLoad) loaded += op.bytes;
      if (op.kind == models::OpKind::kStore) stored += op.bytes;
    }
    const auto& a = l.attn;
    const auto q = static_cast<std::uint64_t>(a.batch * a.heads * a.seq_q * d) * 2;
    const auto kv = static_cast<std::uint64_t>(a.batch * a.kv_heads * a.seq_kv * d) * 2 * 2;
    CHECK(stored == q);  // O
    if (low.tile.find("KV resident") != std::string::npos) {
      ++resident;
      CHECK(loaded == q + kv);  // Q once, and every K/V tile once per head
    } else {
      CHECK(loaded >= q + kv);
    }
  }
  CHECK(resident > 5);
}
