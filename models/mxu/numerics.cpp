#include "models/mxu/numerics.h"

#include <cmath>
#include <cstring>

namespace systole::models {

namespace {

std::uint32_t float_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float bits_float(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// An 8-bit binary float format: `man` mantissa bits, exponent bias `bias`, largest finite
/// magnitude `max`, and whether the top exponent encodes infinities (IEEE style).
struct MiniFloat {
  int man;
  int bias;
  float max;
  bool has_inf;  // e5m2: inf = top exponent, mantissa 0; e4m3: no inf
};

constexpr MiniFloat kE4M3{3, 7, 448.0f, false};
constexpr MiniFloat kE5M2{2, 15, 57344.0f, true};

std::uint8_t encode_mini(float x, const MiniFloat& f, Fp8Overflow o) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x)) return sign | 0x7f;
  const float a = std::fabs(x);
  const auto overflow = [&]() -> std::uint8_t {
    if (o == Fp8Overflow::kSaturate) return sign | encode_mini(f.max, f, o);
    return f.has_inf ? static_cast<std::uint8_t>(sign | 0x7c)
                     : static_cast<std::uint8_t>(sign | 0x7f);
  };
  if (std::isinf(a)) return overflow();
  // Quantization step of a's binade (the subnormal step below the smallest normal).
  const int emin = 1 - f.bias;
  int e = emin;
  if (a >= std::ldexp(1.0f, emin)) {
    int fe;
    std::frexp(a, &fe);  // a = frac * 2^fe, frac in [0.5, 1)
    e = fe - 1;
  }
  const float step = std::ldexp(1.0f, e - f.man);
  // a / step is exact (a power-of-two scaling); nearbyint rounds ties to even in the default
  // rounding mode.
  const float q = std::nearbyint(a / step);
  const float r = q * step;
  if (r > f.max) return overflow();
  if (r == 0.0f) return sign;
  // Re-derive the binade of the rounded value (rounding may carry into the next one).
  int re = emin;
  if (r >= std::ldexp(1.0f, emin)) {
    int fe;
    std::frexp(r, &fe);
    re = fe - 1;
  }
  const bool normal = r >= std::ldexp(1.0f, emin);
  const auto mant =
      static_cast<std::uint32_t>(r / std::ldexp(1.0f, re - f.man)) & ((1u << f.man) - 1);
  const std::uint32_t exp_field = normal ? static_cast<std::uint32_t>(re + f.bias) : 0u;
  const std::uint32_t code = normal
                                 ? (exp_field << f.man) | mant
                                 : static_cast<std::uint32_t>(r / std::ldexp(1.0f, emin - f.man));
  return static_cast<std::uint8_t>(sign | code);
}

float decode_mini(std::uint8_t bits, const MiniFloat& f) {
  const bool neg = bits & 0x80;
  const int exp_bits = 7 - f.man;
  const std::uint32_t exp_field = (bits >> f.man) & ((1u << exp_bits) - 1);
  const std::uint32_t mant = bits & ((1u << f.man) - 1);
  const std::uint32_t top = (1u << exp_bits) - 1;
  float v;
  if (f.has_inf && exp_field == top) {
    v = mant == 0 ? INFINITY : NAN;
  } else if (!f.has_inf && exp_field == top && mant == (1u << f.man) - 1) {
    v = NAN;
  } else if (exp_field == 0) {
    v = std::ldexp(static_cast<float>(mant), 1 - f.bias - f.man);
  } else {
    v = std::ldexp(static_cast<float>(mant + (1u << f.man)),
                   static_cast<int>(exp_field) - f.bias - f.man);
  }
  return neg ? -v : v;
}

}  // namespace

std::uint16_t encode_bf16(float x) {
  const std::uint32_t b = float_bits(x);
  if (std::isnan(x)) return static_cast<std::uint16_t>(((b >> 16) & 0x8000) | 0x7fc0);
  // Round to nearest even on the 16 dropped bits; a carry out of the exponent gives inf.
  const std::uint32_t rounded = b + 0x7fff + ((b >> 16) & 1);
  return static_cast<std::uint16_t>(rounded >> 16);
}

float decode_bf16(std::uint16_t bits) { return bits_float(static_cast<std::uint32_t>(bits) << 16); }

std::uint8_t encode_fp8_e4m3(float x, Fp8Overflow o) { return encode_mini(x, kE4M3, o); }
float decode_fp8_e4m3(std::uint8_t bits) { return decode_mini(bits, kE4M3); }
std::uint8_t encode_fp8_e5m2(float x, Fp8Overflow o) { return encode_mini(x, kE5M2, o); }
float decode_fp8_e5m2(std::uint8_t bits) { return decode_mini(bits, kE5M2); }

float max_finite(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return 127.0f;
    case DataType::kBf16:
      return decode_bf16(0x7f7f);
    case DataType::kFp8E4M3:
      return kE4M3.max;
    case DataType::kFp8E5M2:
      return kE5M2.max;
    case DataType::kFp32:
      return 3.40282347e38f;
    case DataType::kInt32:
      return 2147483647.0f;
  }
  return 0.0f;
}

std::uint16_t encode_operand(DataType t, float x) {
  switch (t) {
    case DataType::kInt8: {
      const float c = std::fmax(-128.0f, std::fmin(127.0f, std::round(x)));
      return static_cast<std::uint16_t>(static_cast<std::uint8_t>(static_cast<std::int8_t>(c)));
    }
    case DataType::kBf16:
      return encode_bf16(x);
    case DataType::kFp8E4M3:
      return encode_fp8_e4m3(x);
    case DataType::kFp8E5M2:
      return encode_fp8_e5m2(x);
    case DataType::kFp32:
    case DataType::kInt32:
      break;
  }
  return 0;
}

float decode_operand(DataType t, std::uint16_t code) {
  switch (t) {
    case DataType::kInt8:
      return static_cast<float>(decode_int8(code));
    case DataType::kBf16:
      return decode_bf16(code);
    case DataType::kFp8E4M3:
      return decode_fp8_e4m3(static_cast<std::uint8_t>(code));
    case DataType::kFp8E5M2:
      return decode_fp8_e5m2(static_cast<std::uint8_t>(code));
    case DataType::kFp32:
    case DataType::kInt32:
      break;
  }
  return 0.0f;
}

}  // namespace systole::models
