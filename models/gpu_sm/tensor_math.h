#pragma once
// Tensor-core arithmetic of one mma.sync / wgmma instruction on real operand codes: fp16, bf16,
// tf32, fp8 e4m3 / e5m2 and int8 inputs, fp32 or int32 accumulators. Plain C++.
//
// Rounding and order (the rule both the warp-level reference and the tests' naive GEMM use):
//  * products are formed in fp32: exact for every input type here (at most 11 x 11 significant
//    bits), except where a product underflows fp32's range (bf16 magnitudes below ~2^-63);
//  * the K products of one instruction (k16 fp16/bf16, k8 tf32, k32 fp8/int8) are summed in
//    fp32 in increasing k, rounding to nearest even after every addition;
//  * that sum is added to the accumulator with one more fp32 rounding.
//  Real tensor cores sum with wider internal adders and truncate (NVIDIA does not publish the
//  order); this model fixes one order so results are reproducible and bounded (README).
//  * int8: products and sums in int32 with two's-complement wrap-around, so order is irrelevant.
// Encodings: fp16 IEEE binary16 and tf32 (fp32 with 10 mantissa bits) round to nearest even;
// bf16 and fp8 come from models/mxu/numerics.h (OCP fp8, saturating).

#include <cstdint>

#include "models/gpu_sm/gpu_sm_config.h"

namespace systole::models {

std::uint16_t encode_fp16(float x);
float decode_fp16(std::uint16_t bits);
/// fp32 bits rounded to tf32 (low 13 mantissa bits zero).
std::uint32_t encode_tf32(float x);
float decode_tf32(std::uint32_t bits);

/// An operand code of type `t` nearest to `x` (int8: rounded, clamped to [-128, 127]).
std::uint32_t tc_encode(TcType t, float x);
/// The exact value of an operand code (int8 as an integer).
float tc_decode(TcType t, std::uint32_t code);

/// D[m x n] += A[m x k] * B[k x n] for one instruction, with the rounding above. A is
/// row-major with leading dimension lda, B row-major with ldb, D row-major with ldd. For
/// int8, `acc_i` is used and `acc_f` ignored, otherwise the reverse.
void tc_mma(TcType t, const std::uint32_t* a, std::int64_t lda, const std::uint32_t* b,
            std::int64_t ldb, std::int64_t m, std::int64_t n, std::int64_t k, float* acc_f,
            std::int32_t* acc_i, std::int64_t ldd);

}  // namespace systole::models
