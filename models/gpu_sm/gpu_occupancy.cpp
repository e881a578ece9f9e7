#include "models/gpu_sm/gpu_occupancy.h"

#include <fmt/format.h>

#include <algorithm>

namespace systole::models {

namespace {

std::int64_t round_up(std::int64_t v, std::int64_t unit) { return (v + unit - 1) / unit * unit; }

[[noreturn]] void fail(const char* key, const std::string& msg) {
  throw ConfigError(Origin{"<cta resources>"}, std::string("cta.") + key, msg);
}

/// The most registers one thread may use on CC 8.0 and 9.0 (CUDA C++ Programming Guide,
/// compute-capability table).
constexpr std::int64_t kMaxRegsPerThread = 255;

}  // namespace

const char* occupancy_limit_name(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::kWarps:
      return "warps";
    case OccupancyLimit::kCtas:
      return "ctas";
    case OccupancyLimit::kRegisters:
      return "registers";
    case OccupancyLimit::kSharedMemory:
      return "shared_memory";
  }
  return "?";
}

Occupancy occupancy(const GpuSmConfig& c, const CtaResources& r) {
  if (r.threads < 1 || r.threads > c.max_threads_per_cta)
    fail("threads",
         fmt::format("{} threads per CTA; an SM takes 1 to {}", r.threads, c.max_threads_per_cta));
  if (r.regs_per_thread < 1 || r.regs_per_thread > kMaxRegsPerThread)
    fail("regs_per_thread",
         fmt::format("{} registers per thread; the ISA allows 1 to {} (spill to local memory "
                     "beyond that)",
                     r.regs_per_thread, kMaxRegsPerThread));
  const auto smem = static_cast<std::int64_t>(r.smem.value());
  if (smem > static_cast<std::int64_t>(c.smem_per_block.value()))
    fail("smem", fmt::format("{} B of shared memory per CTA exceeds the {} B one block may have: "
                             "use fewer pipeline stages or a smaller CTA tile",
                             smem, c.smem_per_block.value()));
  Occupancy o;
  o.warps_per_cta = (r.threads + 31) / 32;
  o.regs_per_warp = round_up(r.regs_per_thread * 32, c.reg_alloc_unit);
  o.smem_per_cta = round_up(smem + static_cast<std::int64_t>(c.smem_reserved_per_block.value()),
                            static_cast<std::int64_t>(c.smem_alloc_unit.value()));
  o.by_warps = c.max_warps / o.warps_per_cta;
  o.by_ctas = c.max_ctas;
  // Registers: each sub-partition holds registers / sub_partitions; a warp lives in one.
  const std::int64_t warps_per_sp = (c.registers / c.sub_partitions) / o.regs_per_warp;
  o.by_registers = warps_per_sp * c.sub_partitions / o.warps_per_cta;
  o.by_smem = static_cast<std::int64_t>(c.smem_per_sm.value()) / o.smem_per_cta;
  // Ties name the first binding limit in this order.
  const std::pair<OccupancyLimit, std::int64_t> limits[] = {
      {OccupancyLimit::kCtas, o.by_ctas},
      {OccupancyLimit::kWarps, o.by_warps},
      {OccupancyLimit::kRegisters, o.by_registers},
      {OccupancyLimit::kSharedMemory, o.by_smem}};
  o.ctas = o.by_ctas;
  o.limiter = OccupancyLimit::kCtas;
  for (const auto& [lim, v] : limits)
    if (v < o.ctas) {
      o.ctas = v;
      o.limiter = lim;
    }
  if (o.ctas == 0)
    fail(o.limiter == OccupancyLimit::kRegisters ? "regs_per_thread" : "threads",
         fmt::format("one CTA does not fit on the SM ({} limits it to 0): {} warps x {} registers",
                     occupancy_limit_name(o.limiter), o.warps_per_cta, o.regs_per_warp));
  return o;
}

}  // namespace systole::models
