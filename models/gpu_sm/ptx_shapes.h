#pragma once
// Instruction shapes both SM kernels (GEMM main loop, FlashAttention) derive their per-warp
// counts from; PTX ISA ("Matrix shapes" of mma and wgmma, ldmatrix, cp.async).

#include <cstdint>

namespace systole::models::ptx {

/// Bytes of operand along K that one tensor-core instruction consumes per row: m16n8k16 fp16,
/// m16n8k8 tf32 and m16n8k32 int8/fp8 (mma and wgmma) all take 32 B.
constexpr std::int64_t kKBytes = 32;
/// One ldmatrix.x4 moves four 8x8 matrices of 16-bit elements: 512 B.
constexpr std::int64_t kLdmatrixBytes = 512;
/// One cp.async.cg moves 16 B per thread, 512 B per warp.
constexpr std::int64_t kCpAsyncWarpBytes = 512;
/// wgmma rows per instruction (m64) and its largest N (8..256 step 8).
constexpr std::int64_t kWgmmaM = 64;
constexpr std::int64_t kWgmmaMaxN = 256;

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace systole::models::ptx
