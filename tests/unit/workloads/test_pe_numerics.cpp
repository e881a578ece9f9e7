// The PE-level MXU (real arithmetic) computes a small convolution and a small attention
// exactly as their references do, fed tile by tile as the lowered program cuts them.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "models/mxu/numerics.h"
#include "models/mxu/pe_array.h"
#include "models/systems/tpu_chip/tpu_system_config.h"
#include "sim/config/node.h"
#include "workloads/lowering/tpu_gemm_lowering.h"
#include "workloads/mapping/layer_plan.h"

using namespace systole;

namespace {

models::TpuChipConfig small_chip(const char* dtype, const char* acc) {
  const std::string yaml = std::string(
                               "chip: {tensor_cores: 2, mxus_per_core: 2, mxu: {rows: 4, cols: 3, "
                               "input_type: ") +
                           dtype + ", accumulate_type: " + acc + "}, vmem: {capacity: 4KiB}}";
  return models::TpuSystemConfig::schema().load(config::parse_yaml(yaml, "chip"), "system").chip;
}

/// C[M x N] (+)= A[M x K] * W[K x N] computed tile by tile on the PE array: every matmul op of
/// the lowered program runs on the array and its partial sums are added into C.
template <class Acc>
std::vector<Acc> gemm_on_pe(const models::TpuChipConfig& chip, const workloads::Layer& g,
                            const std::vector<std::uint16_t>& a,
                            const std::vector<std::uint16_t>& w) {
  const auto mp = workloads::map_gemm(chip, g);
  const auto prog = workloads::lower_gemm(chip, g, mp);
  const std::int64_t K = g.k, N = g.n;
  std::vector<Acc> c(static_cast<size_t>(g.rows() * N), Acc{});
  for (const auto& op : prog.ops) {
    if (op.kind != models::OpKind::kMatmul) continue;
    models::PeArray pe(chip.mxu);
    models::PeJob job;
    job.m = op.m;
    job.k = op.k;
    job.n = op.n;
    for (std::uint32_t i = 0; i < op.m; ++i)
      for (std::uint32_t k = 0; k < op.k; ++k)
        job.a.push_back(a[static_cast<size_t>((op.m0 + i) * K + op.k0 + k)]);
    for (std::uint32_t k = 0; k < op.k; ++k)
      for (std::uint32_t j = 0; j < op.n; ++j)
        job.w.push_back(w[static_cast<size_t>((op.k0 + k) * N + op.n0 + j)]);
    pe.submit(job);
    std::vector<models::PeResult> out;
    for (std::uint64_t x = 0; !pe.idle(); ++x) {
      REQUIRE(x < 1000000);
      pe.tick(x);
      for (auto& r : pe.take_finished()) out.push_back(std::move(r));
    }
    REQUIRE(out.size() == 1);
    for (std::uint32_t i = 0; i < op.m; ++i)
      for (std::uint32_t j = 0; j < op.n; ++j) {
        auto& dst = c[static_cast<size_t>((op.m0 + i) * N + op.n0 + j)];
        if constexpr (std::is_same_v<Acc, std::int32_t>)
          dst = models::wrap_add(dst, out[0].c_int[i * op.n + j]);
        else
          dst += out[0].c_float[i * op.n + j];
      }
  }
  return c;
}

}  // namespace

TEST_CASE("PE array: an int8 convolution equals the direct convolution bit for bit",
          "[unit][numerics]") {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> v(-128, 127);
  workloads::Layer l;
  l.name = "conv";
  l.op = workloads::LayerOp::kConv2d;
  l.dtype = DataType::kInt8;
  l.conv = {2, 6, 5, 3, 5, 3, 3, 2, 1, 1, 1};  // n h w c k r s stride pad dilation groups
  const auto& c = l.conv;
  const std::int64_t P = c.p(), Q = c.q();
  std::vector<std::int32_t> x(static_cast<size_t>(c.n * c.h * c.w * c.c)),
      wt(static_cast<size_t>(c.k * c.r * c.s * c.c));
  for (auto& e : x) e = v(rng);
  for (auto& e : wt) e = v(rng);
  auto X = [&](std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t ch) -> std::int32_t {
    if (h < 0 || h >= c.h || w < 0 || w >= c.w) return 0;  // zero padding
    return x[static_cast<size_t>(((n * c.h + h) * c.w + w) * c.c + ch)];
  };
  // The layer's GEMM job and its implicit-im2col view: row (n, p, q), column (ci, r, s).
  const auto steps = workloads::plan_layer(l, workloads::AttentionImpl::kUnfused,
                                           small_chip("int8", "int32").vector.ops);
  const auto& g = steps.at(0).gemm.gemm;
  REQUIRE(g.rows() == c.n * P * Q);
  std::vector<std::uint16_t> a(static_cast<size_t>(g.rows() * g.k)),
      w(static_cast<size_t>(g.k * g.n));
  for (std::int64_t n = 0; n < c.n; ++n)
    for (std::int64_t p = 0; p < P; ++p)
      for (std::int64_t q = 0; q < Q; ++q)
        for (std::int64_t ci = 0; ci < c.c; ++ci)
          for (std::int64_t r = 0; r < c.r; ++r)
            for (std::int64_t s = 0; s < c.s; ++s)
              a[static_cast<size_t>(((n * P + p) * Q + q) * g.k + (ci * c.r + r) * c.s + s)] =
                  models::encode_operand(DataType::kInt8,
                                         static_cast<float>(X(n, p * c.stride - c.pad + r,
                                                              q * c.stride - c.pad + s, ci)));
  for (std::int64_t f = 0; f < c.k; ++f)
    for (std::int64_t ci = 0; ci < c.c; ++ci)
      for (std::int64_t r = 0; r < c.r; ++r)
        for (std::int64_t s = 0; s < c.s; ++s)
          w[static_cast<size_t>(((ci * c.r + r) * c.s + s) * g.n + f)] = models::encode_operand(
              DataType::kInt8,
              static_cast<float>(wt[static_cast<size_t>(((f * c.r + r) * c.s + s) * c.c + ci)]));
  const auto out = gemm_on_pe<std::int32_t>(small_chip("int8", "int32"), g, a, w);
  for (std::int64_t n = 0; n < c.n; ++n)
    for (std::int64_t p = 0; p < P; ++p)
      for (std::int64_t q = 0; q < Q; ++q)
        for (std::int64_t f = 0; f < c.k; ++f) {
          std::int32_t ref = 0;
          for (std::int64_t ci = 0; ci < c.c; ++ci)
            for (std::int64_t r = 0; r < c.r; ++r)
              for (std::int64_t s = 0; s < c.s; ++s)
                ref += X(n, p * c.stride - c.pad + r, q * c.stride - c.pad + s, ci) *
                       wt[static_cast<size_t>(((f * c.r + r) * c.s + s) * c.c + ci)];
          REQUIRE(out[static_cast<size_t>(((n * P + p) * Q + q) * c.k + f)] == ref);
        }
}

TEST_CASE("PE array: a bf16 grouped-query attention matches the reference", "[unit][numerics]") {
  std::mt19937 rng(22);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const std::int64_t heads = 2, kv_heads = 1, sq = 5, skv = 7, d = 6;
  workloads::Layer l;
  l.name = "attn";
  l.op = workloads::LayerOp::kAttention;
  l.attn = {1, heads, kv_heads, sq, skv, d, true};
  auto bf = [](float v) { return models::decode_bf16(models::encode_bf16(v)); };
  std::vector<float> q(static_cast<size_t>(heads * sq * d)), k(static_cast<size_t>(skv * d)),
      v(static_cast<size_t>(skv * d));
  for (auto& e : q) e = bf(nd(rng));
  for (auto& e : k) e = bf(nd(rng));
  for (auto& e : v) e = bf(nd(rng));
  const auto chip = small_chip("bf16", "fp32");
  const auto steps = workloads::plan_layer(l, workloads::AttentionImpl::kUnfused, chip.vector.ops);
  REQUIRE(steps.size() == 3);
  // S = Q K^T with the group's query heads stacked into rows (the qk step's GEMM).
  const auto& qk = steps[0].gemm.gemm;
  REQUIRE(qk.rows() == heads * sq);
  std::vector<std::uint16_t> qa, kt(static_cast<size_t>(d * skv));
  for (auto e : q) qa.push_back(models::encode_bf16(e));
  for (std::int64_t j = 0; j < skv; ++j)
    for (std::int64_t t = 0; t < d; ++t)
      kt[static_cast<size_t>(t * skv + j)] = models::encode_bf16(k[static_cast<size_t>(j * d + t)]);
  const auto s = gemm_on_pe<float>(chip, qk, qa, kt);
  // Softmax (scaled, causal) on the host in fp32, probabilities rounded to bf16 for PV.
  std::vector<std::uint16_t> p(static_cast<size_t>(heads * sq * skv));
  for (std::int64_t r = 0; r < heads * sq; ++r) {
    const std::int64_t last = skv - sq + r % sq;
    float mx = -INFINITY, sum = 0;
    for (std::int64_t j = 0; j <= last; ++j)
      mx = std::max(mx, s[static_cast<size_t>(r * skv + j)] / std::sqrt(float(d)));
    std::vector<float> e(static_cast<size_t>(skv), 0.0f);
    for (std::int64_t j = 0; j <= last; ++j)
      sum += e[static_cast<size_t>(j)] =
          std::exp(s[static_cast<size_t>(r * skv + j)] / std::sqrt(float(d)) - mx);
    for (std::int64_t j = 0; j < skv; ++j)
      p[static_cast<size_t>(r * skv + j)] = models::encode_bf16(e[static_cast<size_t>(j)] / sum);
  }
  // O = P V (the pv step's GEMM).
  const auto& pv = steps[2].gemm.gemm;
  std::vector<std::uint16_t> vw;
  for (auto e : v) vw.push_back(models::encode_bf16(e));
  const auto o = gemm_on_pe<float>(chip, pv, p, vw);
  // Reference in double, from the same bf16 inputs.
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < sq; ++i) {
      const std::int64_t last = skv - sq + i;
      std::vector<double> sc(static_cast<size_t>(last + 1));
      double mx = -INFINITY, sum = 0;
      for (std::int64_t j = 0; j <= last; ++j) {
        double dot = 0;
        for (std::int64_t t = 0; t < d; ++t)
          dot += double(q[static_cast<size_t>((h * sq + i) * d + t)]) *
                 k[static_cast<size_t>(j * d + t)];
        sc[static_cast<size_t>(j)] = dot / std::sqrt(double(d));
        mx = std::max(mx, sc[static_cast<size_t>(j)]);
      }
      for (auto& e : sc) sum += e = std::exp(e - mx);
      for (std::int64_t t = 0; t < d; ++t) {
        double ref = 0, mag = 0;
        for (std::int64_t j = 0; j <= last; ++j) {
          ref += sc[static_cast<size_t>(j)] / sum * v[static_cast<size_t>(j * d + t)];
          mag += sc[static_cast<size_t>(j)] / sum * std::fabs(v[static_cast<size_t>(j * d + t)]);
        }
        // Probabilities rounded to bf16 (relative error <= 2^-8) dominate the error.
        INFO("head " << h << " query " << i << " dim " << t);
        CHECK(std::fabs(o[static_cast<size_t>((h * sq + i) * d + t)] - ref) <= mag * 0x1p-7 + 1e-6);
      }
    }
}
