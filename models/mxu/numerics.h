#pragma once
// Number formats of the MXU operands: bf16, fp8 e4m3 and fp8 e5m2 (encode with round to nearest,
// ties to even; decode exactly to fp32), int8, and the accumulators (fp32, int32). Plain C++.
//
// Rules (OCP 8-bit floating point spec v1.0 for fp8; bfloat16 = the top half of IEEE binary32):
//  * bf16: 1 sign, 8 exponent (bias 127), 7 mantissa bits; subnormals, +-inf and NaN as in
//    binary32. Encoding rounds to nearest even, so values past the largest finite bf16 round to
//    +-inf (IEEE overflow); NaN encodes as the quiet NaN 0x7fc0 (sign kept).
//  * fp8 e4m3 ("E4M3FN"): bias 7, subnormals, no infinities; S.1111.111 is NaN, the largest
//    finite magnitude is 448 (S.1111.110).
//  * fp8 e5m2: bias 15, subnormals, +-inf = S.11111.00, NaN = S.11111.{01,10,11}; largest
//    finite magnitude 57344.
//  * fp8 overflow, `Fp8Overflow::kSaturate` (the default, what ML hardware uses for
//    activations and weights): a finite value or +-inf whose rounded magnitude exceeds the
//    largest finite value encodes as +-max finite. `kIeee`: it becomes +-inf (e5m2) or NaN
//    (e4m3, which has no inf). NaN always encodes as NaN (0x7f | sign).
//  * int8 x int8 products accumulate in int32 with two's-complement wrap-around; bf16 and fp8
//    products are exact in fp32 (at most 8 x 8 significant bits), so a PE's fp32
//    multiply-accumulate rounds once, in the addition.

#include <cstdint>

#include "models/mxu/mxu_config.h"

namespace systole::models {

enum class Fp8Overflow { kSaturate, kIeee };

std::uint16_t encode_bf16(float x);
float decode_bf16(std::uint16_t bits);

std::uint8_t encode_fp8_e4m3(float x, Fp8Overflow o = Fp8Overflow::kSaturate);
float decode_fp8_e4m3(std::uint8_t bits);

std::uint8_t encode_fp8_e5m2(float x, Fp8Overflow o = Fp8Overflow::kSaturate);
float decode_fp8_e5m2(std::uint8_t bits);

/// Largest finite value of an input type (int8: 127).
float max_finite(DataType t);

/// An operand code of input type `t` (int8 as two's complement in the low byte, fp8 in the low
/// byte, bf16 in 16 bits), encoded from `x` (int8: rounded to nearest, ties away, and clamped).
std::uint16_t encode_operand(DataType t, float x);
/// The exact value of an operand code: int8 as an integer, the float formats as fp32.
float decode_operand(DataType t, std::uint16_t code);
/// int8 operand code -> its integer value.
inline std::int32_t decode_int8(std::uint16_t code) {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(code & 0xff));
}

/// int32 accumulate with two's-complement wrap-around (well defined, unlike signed overflow).
inline std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t wrap_mul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

}  // namespace systole::models
