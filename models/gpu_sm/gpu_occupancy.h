#pragma once
// Occupancy: how many CTAs of one kernel an SM holds at once, from its registers per thread,
// threads per CTA and shared memory per CTA, with the allocation rules of the CUDA occupancy
// calculator (the toolkit's cuda_occupancy.h): registers are allocated per warp in units of
// reg_alloc_unit (256) and split evenly over the sub-partitions, so a warp's registers must fit
// in one sub-partition's share; shared memory per CTA is the request plus the reserved 1 KB,
// rounded up to smem_alloc_unit (128 B); warps and CTAs per SM are capped. Plain C++.

#include <cstdint>
#include <string>

#include "models/gpu_sm/gpu_sm_config.h"

namespace systole::models {

/// What one CTA of a kernel asks of an SM.
struct CtaResources {
  std::int64_t threads = 0;
  std::int64_t regs_per_thread = 0;
  Bytes smem{0};  ///< static + dynamic shared memory per CTA
};

enum class OccupancyLimit { kWarps, kCtas, kRegisters, kSharedMemory };
const char* occupancy_limit_name(OccupancyLimit l);

/// The resident CTAs per SM, the binding limit and each limit's own count.
struct Occupancy {
  std::int64_t ctas = 0;
  OccupancyLimit limiter = OccupancyLimit::kCtas;
  std::int64_t by_warps = 0, by_ctas = 0, by_registers = 0, by_smem = 0;
  std::int64_t warps_per_cta = 0;
  std::int64_t regs_per_warp = 0;  ///< allocated (rounded up)
  std::int64_t smem_per_cta = 0;   ///< allocated bytes (request + reserved, rounded up)
  /// Resident warps over max warps.
  double fraction(const GpuSmConfig& c) const {
    return static_cast<double>(ctas * warps_per_cta) / static_cast<double>(c.max_warps);
  }
};

/// Occupancy of `r` on an SM `c`. Throws ConfigError (path `cta`) when a single CTA does not
/// fit: too many threads, more than 255 registers per thread, or more shared memory than one
/// block may have.
Occupancy occupancy(const GpuSmConfig& c, const CtaResources& r);

}  // namespace systole::models
