#include "models/gpu_sm/gpu_cta_tile.h"

#include <fmt/format.h>

#include "models/gpu_sm/ptx_shapes.h"

namespace systole::models {

namespace {

[[noreturn]] void fail(const char* key, const std::string& msg) {
  throw ConfigError(Origin{"<cta tile>"}, std::string("cta.") + key, msg);
}

using ptx::ceil_div;
using ptx::kCpAsyncWarpBytes;
using ptx::kKBytes;
using ptx::kLdmatrixBytes;
using ptx::kWgmmaM;
using ptx::kWgmmaMaxN;

void check_instruction(const GpuSmConfig& c, const GemmCtaTile& t) {
  if (c.tc_rate(t.in_type) == 0)
    fail("in_type", fmt::format("the {} SM has no {} tensor-core path{}", gpu_arch_name(c.arch),
                                tc_type_name(t.in_type),
                                c.arch == GpuArch::kAmpere ? ": fp8 needs arch hopper" : ""));
  if (t.instr == MmaInstr::kWgmma && c.arch != GpuArch::kHopper)
    fail("instr", "wgmma is sm_90a only: use instr mma_sync on Ampere");
  if (t.copy == CopyEngine::kTma && c.arch != GpuArch::kHopper)
    fail("copy", "TMA is sm_90 only: use copy cp_async on Ampere");
  if ((t.instr == MmaInstr::kWgmma) != (t.copy == CopyEngine::kTma))
    fail("copy",
         "the modelled main loops pair cp.async with mma.sync (multistage) and TMA with wgmma "
         "(warp-specialised)");
  if (t.stages < 2)
    fail("stages", fmt::format("{} stages: a pipelined main loop needs at least 2", t.stages));
  if (t.warps_m < 1 || t.warps_n < 1)
    fail("warps_m", "the warp layout needs at least one warp (or warpgroup) each way");
  if (t.out_bytes != 1 && t.out_bytes != 2 && t.out_bytes != 4)
    fail("out_bytes", fmt::format("{} B per output element: use 1, 2 or 4", t.out_bytes));
  if (t.epilogue_fp32_ops < 0 || t.epilogue_sfu_ops < 0)
    fail("epilogue_fp32_ops", "epilogue op counts cannot be negative");
}

void check_divides(const char* key, std::int64_t tile, std::int64_t parts, std::int64_t unit,
                   const char* what) {
  if (tile % parts != 0 || (tile / parts) % unit != 0 || tile / parts == 0)
    fail(key,
         fmt::format("{} split {} ways is not a multiple of {} ({})", tile, parts, unit, what));
}

}  // namespace

MainloopShape mainloop_shape(const GpuSmConfig& c, const GemmCtaTile& t) {
  check_instruction(c, t);
  MainloopShape s;
  s.wgmma = t.instr == MmaInstr::kWgmma;
  s.stages = t.stages;
  s.bm = t.bm;
  s.bn = t.bn;
  s.bk = t.bk;
  s.elem_bytes = tc_type_bytes(t.in_type);
  s.out_bytes = t.out_bytes;
  s.k_instr = kKBytes / s.elem_bytes;
  if (t.bk < 1 || t.bk % s.k_instr != 0)
    fail("bk", fmt::format("bk {} is not a multiple of the instruction's K ({} for {})", t.bk,
                           s.k_instr, tc_type_name(t.in_type)));
  const std::int64_t sps = c.sub_partitions;
  const std::int64_t rate_sp = c.tc_rate(t.in_type) / sps;
  if (t.swap_ab && !s.wgmma)
    fail("swap_ab", "swapped operands are modelled for wgmma (sm_90a) main loops only");
  if (s.wgmma) {
    if (t.swap_ab) {
      check_divides("bn", t.bn, t.warps_n, kWgmmaM,
                    "swapped operands: a warpgroup's columns must be whole m64 wgmmas");
      check_divides("bm", t.bm, t.warps_m, 8,
                    "swapped operands: wgmma N (along M) is a multiple of 8");
    } else {
      check_divides("bm", t.bm, t.warps_m, kWgmmaM, "a warpgroup's rows must be whole m64 wgmmas");
      check_divides("bn", t.bn, t.warps_n, 8, "wgmma N is a multiple of 8");
    }
    s.wm = t.bm / t.warps_m;
    s.wn = t.bn / t.warps_n;
    // The warpgroup tile's side along the wgmma's m64 and its side that is the wgmma's N.
    const std::int64_t along_m64 = t.swap_ab ? s.wn : s.wm;
    const std::int64_t wgmma_n = t.swap_ab ? s.wm : s.wn;
    if (wgmma_n > kWgmmaMaxN)
      fail(t.swap_ab ? "bm" : "bn",
           t.swap_ab ? fmt::format("swapped operands: a warpgroup's M of {} exceeds wgmma's N "
                                   "of 256",
                                   wgmma_n)
                     : fmt::format("a warpgroup's N of {} exceeds wgmma's 256: add warpgroups "
                                   "along N (warps_n)",
                                   wgmma_n));
    s.compute_warps = 4 * t.warps_m * t.warps_n;
    s.warps = s.compute_warps + 4;  // the producer warpgroup
    s.producer_warp = 0;
    s.first_compute_warp = 4;
    s.mma_per_step = along_m64 / kWgmmaM;  // one m64nN wgmma per 64; each warp runs 16 of them
    s.mma_ii = ceil_div(16 * wgmma_n * s.k_instr, rate_sp);
    s.acc_per_thread = s.mma_per_step * 16 * wgmma_n / 32;
  } else {
    check_divides("bm", t.bm, t.warps_m, 16, "a warp tile is whole m16 fragments");
    check_divides("bn", t.bn, t.warps_n, 16, "a warp tile is whole ldmatrix.x4 B fragments");
    s.wm = t.bm / t.warps_m;
    s.wn = t.bn / t.warps_n;
    s.compute_warps = t.warps_m * t.warps_n;
    s.warps = s.compute_warps;
    s.mma_per_step = (s.wm / 16) * (s.wn / 8);
    s.ldm_per_step = s.wm / 16 + s.wn / 16;
    s.mma_ii = c.mma_sync_ii(t.in_type);
    s.acc_per_thread = s.wm * s.wn / 32;
    if (s.mma_ii < 2)
      fail("instr", fmt::format("mma.sync would hold its pipe {} cycle per instruction: a warp "
                                "scheduler issuing one instruction per clock could not also "
                                "issue the ldmatrix feeding it; use wgmma (sm_90) or a lower "
                                "tensor rate",
                                s.mma_ii));
    const std::int64_t tile_bytes = (t.bm + t.bn) * t.bk * s.elem_bytes;
    s.cp_per_warp = ceil_div(tile_bytes, kCpAsyncWarpBytes * s.compute_warps);
  }
  // Each sub-partition has an equal share of the banks (see README: shared-memory port).
  s.ldm_cycles = ceil_div(kLdmatrixBytes * sps, c.smem_bytes_per_clock());
  if (t.copy == CopyEngine::kCpAsync)
    s.cp_smem_cycles = ceil_div(kCpAsyncWarpBytes * sps, c.smem_bytes_per_clock());
  const std::int64_t convert = t.out_bytes < 4 ? ceil_div(s.acc_per_thread, 2) : 0;
  s.ep_fp32 = s.acc_per_thread * t.epilogue_fp32_ops + convert;
  s.ep_sfu = s.acc_per_thread * t.epilogue_sfu_ops;
  s.ep_st = ceil_div(s.acc_per_thread * t.out_bytes, 16);
  s.fp32_cycles = ceil_div(32 * sps, c.fp32_lanes);
  s.sfu_cycles = ceil_div(32 * sps, c.sfu_lanes);
  std::int64_t smem = t.stages * (t.bm + t.bn) * t.bk * s.elem_bytes;
  if (s.wgmma) smem += t.stages * 16;  // a full and an empty mbarrier (8 B each) per stage
  s.resources.threads = 32 * s.warps;
  s.resources.regs_per_thread = t.regs_per_thread;
  s.resources.smem = Bytes(static_cast<std::uint64_t>(smem));
  occupancy(c, s.resources);  // throws when one CTA does not fit
  return s;
}

void check_cta_work(const GemmCtaTile& t, const CtaWork& w) {
  if (w.m < 1 || w.m > t.bm || w.n < 1 || w.n > t.bn)
    fail("work",
         fmt::format("CTA {} covers {} x {}, outside 1..{} x 1..{}", w.id, w.m, w.n, t.bm, t.bn));
  if (w.k < 1) fail("work", fmt::format("CTA {} has an empty K slice", w.id));
}

}  // namespace systole::models
