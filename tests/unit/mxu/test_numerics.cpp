// MXU number formats: bf16 and fp8 (e4m3, e5m2) round to nearest even, saturate or overflow
// as documented in models/mxu/numerics.h, and decode exactly; checked exhaustively against a
// brute-force search over every code.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "models/mxu/numerics.h"

using namespace systole;
using namespace systole::models;

namespace {

/// Brute force: the finite code nearest to x (ties to the even code), saturating.
std::uint8_t nearest_fp8(float x, float (*decode)(std::uint8_t)) {
  int best = -1;
  double best_d = INFINITY;
  for (int c = 0; c < 256; ++c) {
    const float v = decode(static_cast<std::uint8_t>(c));
    if (!std::isfinite(v)) continue;
    if (std::signbit(v) != std::signbit(x)) continue;  // keep the sign (also of zero)
    const double d = std::fabs(static_cast<double>(v) - static_cast<double>(x));
    if (d < best_d || (d == best_d && (c & 1) == 0)) {
      best_d = d;
      best = c;
    }
  }
  return static_cast<std::uint8_t>(best);
}

float bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace

TEST_CASE("bf16: every code decodes and re-encodes to itself", "[unit][mxu][numerics]") {
  for (std::uint32_t c = 0; c < 65536; ++c) {
    const float v = decode_bf16(static_cast<std::uint16_t>(c));
    const std::uint16_t back = encode_bf16(v);
    if (std::isnan(v)) {
      CHECK(std::isnan(decode_bf16(back)));
      CHECK((back & 0x8000) == (c & 0x8000));
    } else {
      INFO("code " << c);
      REQUIRE(back == c);
    }
  }
}

TEST_CASE("bf16: round to nearest even, overflow to inf", "[unit][mxu][numerics]") {
  // 1 + 2^-8 lies halfway between 1 (mantissa 0, even) and 1 + 2^-7 (odd): rounds to 1.
  CHECK(decode_bf16(encode_bf16(1.0f + std::ldexp(1.0f, -8))) == 1.0f);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): rounds up.
  CHECK(decode_bf16(encode_bf16(1.0f + 3 * std::ldexp(1.0f, -8))) == 1.0f + std::ldexp(1.0f, -6));
  // Just above the halfway point rounds up.
  CHECK(decode_bf16(encode_bf16(bits(0x3f808001))) == bits(0x3f810000));
  CHECK(std::isinf(decode_bf16(encode_bf16(3.4e38f))));  // past 0x7f7f + half ulp
  CHECK(decode_bf16(encode_bf16(-0.0f)) == 0.0f);
  CHECK(std::signbit(decode_bf16(encode_bf16(-0.0f))));
  CHECK(encode_bf16(NAN) == 0x7fc0);
}

TEST_CASE("fp8: every finite code round-trips, NaN and inf codes", "[unit][mxu][numerics]") {
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    const float a = decode_fp8_e4m3(code), b = decode_fp8_e5m2(code);
    INFO("code " << c);
    if (std::isnan(a))
      CHECK((c & 0x7f) == 0x7f);  // e4m3: only S.1111.111 is NaN
    else
      CHECK(encode_fp8_e4m3(a) == code);
    if (std::isnan(b) || std::isinf(b))
      CHECK((c & 0x7c) == 0x7c);  // e5m2: exponent 11111
    else
      CHECK(encode_fp8_e5m2(b) == code);
  }
  CHECK(decode_fp8_e4m3(0x7e) == 448.0f);
  CHECK(decode_fp8_e4m3(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal
  CHECK(decode_fp8_e5m2(0x7b) == 57344.0f);
  CHECK(std::isinf(decode_fp8_e5m2(0x7c)));
  CHECK(decode_fp8_e5m2(0x01) == std::ldexp(1.0f, -16));
}

TEST_CASE("fp8: encoding is the nearest code, ties to even, saturating", "[unit][mxu][numerics]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> expo(-20, 17);
  for (int i = 0; i < 20000; ++i) {
    float x = std::ldexp(mant(rng), expo(rng));
    if (i % 2) x = -x;
    if (i % 5 == 0) x = std::nearbyint(x * 64.0f) / 64.0f;  // many exact ties
    INFO("x = " << x);
    REQUIRE(encode_fp8_e4m3(x) == nearest_fp8(x, decode_fp8_e4m3));
    REQUIRE(encode_fp8_e5m2(x) == nearest_fp8(x, decode_fp8_e5m2));
  }
  // Halfway cases spelled out. e4m3: 2^-10 is half the smallest subnormal -> 0 (even);
  // 3 * 2^-10 is halfway between codes 1 and 2 -> 2 (even).
  CHECK(encode_fp8_e4m3(std::ldexp(1.0f, -10)) == 0x00);
  CHECK(encode_fp8_e4m3(3 * std::ldexp(1.0f, -10)) == 0x02);
  // 464 is halfway between 448 (mantissa 110) and 480 (would be 111, the NaN code): -> 448.
  CHECK(encode_fp8_e4m3(464.0f) == 0x7e);
  CHECK(encode_fp8_e4m3(465.0f) == 0x7e);  // saturates
  CHECK(encode_fp8_e4m3(INFINITY) == 0x7e);
  CHECK(encode_fp8_e4m3(-1e9f) == 0xfe);
  CHECK(encode_fp8_e4m3(NAN) == 0x7f);
}

TEST_CASE("fp8: IEEE overflow when not saturating", "[unit][mxu][numerics]") {
  CHECK(encode_fp8_e4m3(464.0f, Fp8Overflow::kIeee) == 0x7e);  // rounds down to 448
  CHECK(encode_fp8_e4m3(465.0f, Fp8Overflow::kIeee) == 0x7f);  // NaN: e4m3 has no inf
  // e5m2: 61440 is halfway between 57344 (odd mantissa 11) and 65536 (even): -> inf.
  CHECK(encode_fp8_e5m2(61440.0f, Fp8Overflow::kIeee) == 0x7c);
  CHECK(encode_fp8_e5m2(61439.0f, Fp8Overflow::kIeee) == 0x7b);
  CHECK(encode_fp8_e5m2(-INFINITY, Fp8Overflow::kIeee) == 0xfc);
  CHECK(encode_fp8_e5m2(61440.0f) == 0x7b);  // saturating default
}

TEST_CASE("int8 operands and int32 wrap-around", "[unit][mxu][numerics]") {
  CHECK(decode_int8(encode_operand(DataType::kInt8, -128.0f)) == -128);
  CHECK(decode_int8(encode_operand(DataType::kInt8, 300.0f)) == 127);
  CHECK(decode_int8(encode_operand(DataType::kInt8, -2.5f)) == -3);  // round half away
  CHECK(wrap_add(2147483647, 1) == -2147483647 - 1);
  CHECK(wrap_mul(-128, -128) == 16384);
  CHECK(max_finite(DataType::kFp8E4M3) == 448.0f);
  CHECK(max_finite(DataType::kBf16) == bits(0x7f7f0000));
}
