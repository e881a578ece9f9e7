#include "models/gpu_sm/tensor_math.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "models/mxu/numerics.h"

namespace systole::models {

std::uint16_t encode_fp16(float x) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7e00;
  const float a = std::fabs(x);
  if (std::isinf(a)) return sign | 0x7c00;
  // Binade of a (the subnormal step below 2^-14), then round to 10 mantissa bits.
  int e = -14;
  if (a >= std::ldexp(1.0f, -14)) {
    int fe;
    std::frexp(a, &fe);
    e = fe - 1;
  }
  const float step = std::ldexp(1.0f, e - 10);
  const float r = std::nearbyint(a / step) * step;  // ties to even (default rounding mode)
  if (r >= 65520.0f) return sign | 0x7c00;          // rounds past the largest finite (65504): inf
  if (r == 0.0f) return sign;
  if (r < std::ldexp(1.0f, -14))
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r / std::ldexp(1.0f, -24)));
  int fe;
  std::frexp(r, &fe);
  const int re = fe - 1;
  const auto mant = static_cast<std::uint32_t>(r / std::ldexp(1.0f, re - 10)) & 0x3ffu;
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(re + 15) << 10) | mant);
}

float decode_fp16(std::uint16_t bits) {
  const bool neg = bits & 0x8000;
  const std::uint32_t exp = (bits >> 10) & 0x1f;
  const std::uint32_t mant = bits & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    v = mant ? std::nanf("") : INFINITY;
  else
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return neg ? -v : v;
}

std::uint32_t encode_tf32(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  if (std::isnan(x)) return (b | 0x00400000u) & ~0x1fffu;
  if (std::isinf(x)) return b;
  // Round to nearest even at bit 13; a carry into the exponent is the correct rounding (and
  // overflow to inf past the largest tf32).
  const std::uint32_t lsb = (b >> 13) & 1u;
  b += 0x0fffu + lsb;
  return b & ~0x1fffu;
}

float decode_tf32(std::uint32_t bits) {
  const std::uint32_t b = bits & ~0x1fffu;
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

std::uint32_t tc_encode(TcType t, float x) {
  switch (t) {
    case TcType::kFp16:
      return encode_fp16(x);
    case TcType::kBf16:
      return encode_bf16(x);
    case TcType::kTf32:
      return encode_tf32(x);
    case TcType::kFp8E4M3:
      return encode_fp8_e4m3(x);
    case TcType::kFp8E5M2:
      return encode_fp8_e5m2(x);
    case TcType::kInt8: {
      const float r = std::fmax(-128.0f, std::fmin(127.0f, std::round(x)));
      return static_cast<std::uint8_t>(static_cast<std::int8_t>(r));
    }
  }
  return 0;
}

float tc_decode(TcType t, std::uint32_t code) {
  switch (t) {
    case TcType::kFp16:
      return decode_fp16(static_cast<std::uint16_t>(code));
    case TcType::kBf16:
      return decode_bf16(static_cast<std::uint16_t>(code));
    case TcType::kTf32:
      return decode_tf32(code);
    case TcType::kFp8E4M3:
      return decode_fp8_e4m3(static_cast<std::uint8_t>(code));
    case TcType::kFp8E5M2:
      return decode_fp8_e5m2(static_cast<std::uint8_t>(code));
    case TcType::kInt8:
      return static_cast<float>(static_cast<std::int8_t>(static_cast<std::uint8_t>(code)));
  }
  return 0;
}

void tc_mma(TcType t, const std::uint32_t* a, std::int64_t lda, const std::uint32_t* b,
            std::int64_t ldb, std::int64_t m, std::int64_t n, std::int64_t k, float* acc_f,
            std::int32_t* acc_i, std::int64_t ldd) {
  if (t == TcType::kInt8) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        std::int32_t s = 0;
        for (std::int64_t q = 0; q < k; ++q)
          s = wrap_add(s, wrap_mul(decode_int8(static_cast<std::uint16_t>(a[i * lda + q])),
                                   decode_int8(static_cast<std::uint16_t>(b[q * ldb + j]))));
        acc_i[i * ldd + j] = wrap_add(acc_i[i * ldd + j], s);
      }
    return;
  }
  // Decode each operand once (exact), then multiply-add in the stated order.
  std::vector<float> av(static_cast<size_t>(m * k)), bv(static_cast<size_t>(k * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t q = 0; q < k; ++q)
      av[static_cast<size_t>(i * k + q)] = tc_decode(t, a[i * lda + q]);
  for (std::int64_t q = 0; q < k; ++q)
    for (std::int64_t j = 0; j < n; ++j)
      bv[static_cast<size_t>(q * n + j)] = tc_decode(t, b[q * ldb + j]);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      // Separate statements: each product and sum is rounded to fp32 on its own (the build is
      // ISO C++, so the compiler does not contract them into FMAs).
      const float* ar = av.data() + i * k;
      float s = ar[0] * bv[static_cast<size_t>(j)];
      for (std::int64_t q = 1; q < k; ++q) {
        const float p = ar[q] * bv[static_cast<size_t>(q * n + j)];
        s += p;
      }
      acc_f[i * ldd + j] += s;
    }
}

}  // namespace systole::models
