#include "models/mxu/pe_operands.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "models/mxu/numerics.h"

namespace systole::models {

namespace {

/// One operand code from 64 random bits (no library distribution: the same codes everywhere).
std::uint16_t draw(DataType t, std::uint64_t bits) {
  if (t == DataType::kInt8) return static_cast<std::uint16_t>(bits & 0xff);
  const float mantissa = 1.0f + static_cast<float>((bits >> 8) & 0x7f) / 128.0f;
  const int exponent = static_cast<int>((bits >> 16) % 12) - 6;
  const float v = std::ldexp(mantissa, exponent);
  return encode_operand(t, (bits >> 24) & 1 ? -v : v);
}

/// C[i][j] as the array accumulates it (see count_mismatches).
float ordered_sum(const MxuConfig& cfg, const PeJob& job, std::uint32_t i, std::uint32_t j) {
  const auto av = [&](std::uint32_t k) {
    return decode_operand(cfg.input_type, job.a[static_cast<size_t>(i) * job.k + k]);
  };
  const auto wv = [&](std::uint32_t k) {
    return decode_operand(cfg.input_type, job.w[static_cast<size_t>(k) * job.n + j]);
  };
  const auto block =
      cfg.dataflow == Dataflow::kOutputStationary ? job.k : static_cast<std::uint32_t>(cfg.rows);
  float sum = 0.0f;
  for (std::uint32_t k0 = 0; k0 < job.k; k0 += block) {
    float psum = 0.0f;
    for (std::uint32_t k = k0; k < std::min(job.k, k0 + block); ++k) {
      const float p = av(k) * wv(k);  // exact in fp32
      psum = psum + p;
    }
    sum = k0 == 0 ? psum : sum + psum;
  }
  return sum;
}

std::int32_t int_sum(const PeJob& job, std::uint32_t i, std::uint32_t j) {
  std::int32_t sum = 0;
  for (std::uint32_t k = 0; k < job.k; ++k)
    sum = wrap_add(sum, wrap_mul(decode_int8(job.a[static_cast<size_t>(i) * job.k + k]),
                                 decode_int8(job.w[static_cast<size_t>(k) * job.n + j])));
  return sum;
}

}  // namespace

PeJob pseudo_random_job(const MxuConfig& cfg, std::uint32_t m, std::uint32_t k, std::uint32_t n,
                        std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  PeJob job;
  job.m = m;
  job.k = k;
  job.n = n;
  job.a.resize(static_cast<size_t>(m) * k);
  job.w.resize(static_cast<size_t>(k) * n);
  for (auto& c : job.a) c = draw(cfg.input_type, rng());
  for (auto& c : job.w) c = draw(cfg.input_type, rng());
  return job;
}

std::uint64_t count_mismatches(const MxuConfig& cfg, const PeJob& job, const PeResult& r) {
  const bool is_int = cfg.input_type == DataType::kInt8;
  const size_t cells = static_cast<size_t>(job.m) * job.n;
  if ((is_int ? r.c_int.size() : r.c_float.size()) != cells) return cells;
  std::uint64_t bad = 0;
  for (std::uint32_t i = 0; i < job.m; ++i)
    for (std::uint32_t j = 0; j < job.n; ++j) {
      const size_t idx = static_cast<size_t>(i) * job.n + j;
      if (is_int) {
        bad += r.c_int[idx] != int_sum(job, i, j);
      } else {
        const float ref = ordered_sum(cfg, job, i, j);
        bad += std::memcmp(&r.c_float[idx], &ref, sizeof(float)) != 0;
      }
    }
  return bad;
}

}  // namespace systole::models
