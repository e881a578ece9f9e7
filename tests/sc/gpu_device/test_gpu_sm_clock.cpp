// SM cycles <-> picoseconds (gpu_sm_module.h): the two conversions are inverses at any clock.
// Until 2026-11-28 a kernel's cycle c began at c x (the period rounded to whole picoseconds)
// while arrivals were counted at the exact clock: at 1185 MHz (843.88 ps -> 844) every copy of
// a long kernel was answered up to 0.014% of its cycles late, and an A100 16384^3 GEMM ran at
// 24% of the tensor peak after a warm-up pass settled the clock there
// (tests/validation/gpu/README.md, "The A100's large GEMMs").
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>

#include "models/gpu_sm/gpu_sm_module.h"

namespace systole::models {
namespace {

TEST_CASE("gpu_sm: cycles and picoseconds are inverses at any clock", "[unit][gpu_sm][clock]") {
  std::mt19937_64 rng(20261128);
  std::uniform_int_distribution<std::uint64_t> cycles(0, std::uint64_t{1} << 33);
  for (const double mhz : {1185.0, 1200.0, 1410.0, 1755.0, 1830.0, 1980.0, 1234.5, 345.0}) {
    const double f = mhz * 1e6, period = 1e12 / f;
    int old_rule_misses = 0;
    for (int i = 0; i < 200000; ++i) {
      const std::uint64_t c = i < 1000 ? static_cast<std::uint64_t>(i) : cycles(rng);
      const std::uint64_t ps = gpu_sm_cycle_end_ps(c, period);
      INFO(mhz << " MHz, cycle " << c << ", ps " << ps);
      REQUIRE(gpu_sm_cycle_of_ps(ps, f) == c);
      REQUIRE(gpu_sm_cycle_of_ps(ps + 2, f) == c + 1);  // the boundary is within 1 ps
      const auto rounded = static_cast<std::uint64_t>(c * std::llround(period));  // the old rule
      old_rule_misses += gpu_sm_cycle_of_ps(rounded, f) != c;
    }
    // The old rule drifts wherever the period is not a whole picosecond (every clock here).
    CHECK(old_rule_misses > 100000);
  }
}

}  // namespace
}  // namespace systole::models
