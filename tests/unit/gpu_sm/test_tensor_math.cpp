// Real arithmetic through the tensor-core path: number formats, and every CTA's accumulators
// from the warp-level reference checked against a naive GEMM (bit-identical when the naive GEMM
// sums in the same order; within the derived rounding bound of the exact result; exact for
// int8).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/gpu_sm/gpu_sm_warp_model.h"
#include "models/gpu_sm/tensor_math.h"
#include "tests/unit/gpu_sm/random_gemm.h"

using namespace systole;
using namespace systole::models;

TEST_CASE("fp16 encoding: round trip and round to nearest even", "[gpu_sm][math]") {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float v = decode_fp16(static_cast<std::uint16_t>(b));
    if (std::isnan(v)) continue;
    REQUIRE(encode_fp16(v) == b);
  }
  CHECK(encode_fp16(1.0f) == 0x3c00);
  CHECK(encode_fp16(65504.0f) == 0x7bff);
  CHECK(encode_fp16(65520.0f) == 0x7c00);                          // halfway past the largest: inf
  CHECK(encode_fp16(std::ldexp(1.0f, -24)) == 0x0001);             // smallest subnormal
  CHECK(encode_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // tie -> even
  CHECK(encode_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie -> even (up)
  CHECK(encode_fp16(-2.0f) == 0xc000);
}

TEST_CASE("tf32 encoding keeps 10 mantissa bits, ties to even", "[gpu_sm][math]") {
  CHECK(decode_tf32(encode_tf32(1.0f + std::ldexp(1.0f, -10))) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(decode_tf32(encode_tf32(1.0f + std::ldexp(1.0f, -11))) == 1.0f);
  CHECK(decode_tf32(encode_tf32(1.0f + 3 * std::ldexp(1.0f, -11))) == 1.0f + std::ldexp(1.0f, -9));
  CHECK(tc_decode(TcType::kInt8, tc_encode(TcType::kInt8, -300.0f)) == -128.0f);
}

namespace {

GemmOperands operands(TcType t, std::int64_t m, std::int64_t n, std::int64_t k, std::mt19937& g) {
  GemmOperands o;
  o.type = t;
  o.m = m;
  o.n = n;
  o.k = k;
  std::uniform_real_distribution<float> v(t == TcType::kInt8 ? -128.0f : -2.0f,
                                          t == TcType::kInt8 ? 127.0f : 2.0f);
  for (std::int64_t i = 0; i < m * k; ++i) o.a.push_back(tc_encode(t, v(g)));
  for (std::int64_t i = 0; i < k * n; ++i) o.b.push_back(tc_encode(t, v(g)));
  return o;
}

}  // namespace

TEST_CASE("reference accumulators equal a naive GEMM on random CTAs of every type",
          "[gpu_sm][math]") {
  std::mt19937 g(7);
  const double u = std::ldexp(1.0, -24);
  int checked = 0;
  for (int i = 0; i < 60; ++i) {
    const test::RandomGemm r = test::random_gemm(g, 2);
    INFO("case " << i << ": " << r.describe());
    const TcType t = r.launch.tile.in_type;
    const GemmOperands o = operands(t, r.m, r.n, r.k, g);
    auto port = r.port();
    std::vector<CtaResult> res;
    GpuSmWarpModel(r.sm, port).run(r.launch, &o, &res);
    const std::int64_t kin = 32 / tc_type_bytes(t);
    std::vector<CtaWork> works;
    for (const auto& l : r.launch.per_sm) works.insert(works.end(), l.begin(), l.end());
    REQUIRE(res.size() == works.size());
    std::sort(works.begin(), works.end(),
              [](const CtaWork& x, const CtaWork& y) { return x.id < y.id; });
    for (const CtaResult& cr : res) {
      const CtaWork& w = works[static_cast<size_t>(cr.id)];
      const std::int64_t chunks = (w.k + kin - 1) / kin;
      const double gamma =
          static_cast<double>(kin + chunks) * u / (1 - static_cast<double>(kin + chunks) * u);
      for (std::int64_t a = 0; a < w.m; ++a)
        for (std::int64_t b = 0; b < w.n; ++b) {
          auto av = [&](std::int64_t q) {
            return q < w.k ? o.a[static_cast<size_t>((w.m0 + a) * o.k + w.k0 + q)] : 0u;
          };
          auto bv = [&](std::int64_t q) {
            return q < w.k ? o.b[static_cast<size_t>((w.k0 + q) * o.n + w.n0 + b)] : 0u;
          };
          const auto at = static_cast<size_t>(a * w.n + b);
          if (t == TcType::kInt8) {
            std::int64_t exact = 0;
            for (std::int64_t q = 0; q < w.k; ++q)
              exact += static_cast<std::int64_t>(tc_decode(t, av(q))) *
                       static_cast<std::int64_t>(tc_decode(t, bv(q)));
            REQUIRE(cr.i[at] == exact);  // |sum| < 2^31 here, so no wrap-around
            continue;
          }
          // Same order: per instruction, products summed in fp32 in k order, then added.
          float acc = 0;
          double exact = 0, mag = 0;
          for (std::int64_t c0 = 0; c0 < chunks * kin; c0 += kin) {
            float s = tc_decode(t, av(c0)) * tc_decode(t, bv(c0));
            for (std::int64_t q = c0 + 1; q < c0 + kin; ++q) {
              const float p = tc_decode(t, av(q)) * tc_decode(t, bv(q));
              s += p;
            }
            acc += s;
            for (std::int64_t q = c0; q < c0 + kin; ++q) {
              const double p = static_cast<double>(tc_decode(t, av(q))) * tc_decode(t, bv(q));
              exact += p;
              mag += std::fabs(p);
            }
          }
          REQUIRE(cr.f[at] == acc);
          REQUIRE(std::fabs(static_cast<double>(cr.f[at]) - exact) <= gamma * mag);
        }
      ++checked;
    }
  }
  CHECK(checked > 100);
}
