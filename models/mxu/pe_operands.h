#pragma once
// Operands and result checks for the PE-level MXU model in a run (mxu.model: pe): the program
// carries shapes, not values, so each matmul gets deterministic pseudo-random operand codes
// seeded by its op index, and its result is compared with a plain reference GEMM of the same
// codes. Plain C++.

#include <cstdint>

#include "models/mxu/pe_array.h"

namespace systole::models {

/// A job of shape m x k x n with pseudo-random finite operand codes of `cfg.input_type` drawn
/// from `seed` (int8: any code; floats: +-[1, 2) x 2^e, e in [-6, 5], rounded to the format).
PeJob pseudo_random_job(const MxuConfig& cfg, std::uint32_t m, std::uint32_t k, std::uint32_t n,
                        std::uint64_t seed);

/// Compares `r` with a plain reference GEMM of `job`'s codes, accumulated in the array's order
/// (ws/is: each block of R k-values summed from +0, the blocks added in order; os: one running
/// sum over k), so every result must match bit for bit (int8: exactly, with int32 wrap).
/// Returns how many of the m x n results differ.
std::uint64_t count_mismatches(const MxuConfig& cfg, const PeJob& job, const PeResult& r);

}  // namespace systole::models
