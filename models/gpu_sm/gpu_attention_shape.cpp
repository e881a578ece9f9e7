// FlashTile validation and the per-warp counts of a FlashAttention forward kernel (FlashShape).
// Sources: Dao-AILab/flash-attention csrc/flash_attn/src/{kernel_traits.h, flash_fwd_kernel.h,
// softmax.h} (FA-2) and hopper/{mainloop_fwd_sm90_tma_gmma_ws.hpp, softmax.h, tile_size.h}
// (FA-3); PTX ISA (mma.sync m16n8k16, wgmma m64nNk16, ldmatrix, cp.async).
#include <fmt/format.h>

#include <algorithm>

#include "models/gpu_sm/gpu_attention.h"
#include "models/gpu_sm/ptx_shapes.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {

[[noreturn]] void fail(const char* key, const std::string& msg) {
  throw ConfigError(Origin{"<flash tile>"}, std::string("flash.") + key, msg);
}

using ptx::ceil_div;
using ptx::kCpAsyncWarpBytes;
using ptx::kKBytes;
using ptx::kLdmatrixBytes;
using ptx::kWgmmaM;
using ptx::kWgmmaMaxN;
/// The largest head dimension either kernel instantiates (FA-2 run_mha_fwd_hdim256; FA-3
/// tile_size_fwd_sm90's last case).
constexpr std::int64_t kMaxHeadDim = 256;
/// FA-3 runs one to three consumer warpgroups (static_assert in the sm90 mainloop).
constexpr std::int64_t kMaxWarpgroups = 3;
/// Instructions per score element of a block on the causal diagonal (index compare and select:
/// ISETP + FSEL) -- flash::Mask::apply_mask; counted in the SASS of FA-2's causal d128 and d64
/// builds (ptxas 13.0, sm_90: 65 ISETP + 64 FSEL per 64 scores, 128 + 128 per 128; README "FA-2
/// causal CTAs"). FA-2 runs them on the ALU pipe; FA-3's softmax (not counted) charges them on
/// the FP32 lanes.
constexpr std::int64_t kMaskOpsPerElement = 2;

void check_types(const GpuSmConfig& c, const FlashTile& t) {
  if (c.tc_rate(t.in_type) == 0)
    fail("in_type", fmt::format("the {} SM has no {} tensor-core path{}", gpu_arch_name(c.arch),
                                tc_type_name(t.in_type),
                                c.arch == GpuArch::kAmpere ? ": fp8 needs arch hopper" : ""));
  const bool sixteen = t.in_type == TcType::kFp16 || t.in_type == TcType::kBf16;
  if (t.version == FlashVersion::kFa2 && !sixteen)
    fail("in_type",
         fmt::format("FlashAttention-2 runs fp16 and bf16 only, not {}", tc_type_name(t.in_type)));
  if (t.version == FlashVersion::kFa3 && !sixteen && t.in_type != TcType::kFp8E4M3)
    fail("in_type", fmt::format("FlashAttention-3 runs fp16, bf16 and fp8 e4m3, not {}",
                                tc_type_name(t.in_type)));
  if (t.version == FlashVersion::kFa3 && c.arch != GpuArch::kHopper)
    fail("version", "FlashAttention-3 needs wgmma and TMA (sm_90a): use fa2 on this SM");
  if (t.out_bytes != 1 && t.out_bytes != 2 && t.out_bytes != 4)
    fail("out_bytes", fmt::format("{} B per output element: use 1, 2 or 4", t.out_bytes));
}

void check_dims(const GpuSmConfig& c, const FlashTile& t, std::int64_t k_instr) {
  if (t.head_dim < 32 || t.head_dim > kMaxHeadDim || t.head_dim % 32 != 0)
    fail("head_dim", fmt::format("head_dim {} is unsupported: FlashAttention kernels take "
                                 "multiples of 32 up to {}",
                                 t.head_dim, kMaxHeadDim));
  if (t.block_n < k_instr || t.block_n % k_instr != 0 || t.block_n % 16 != 0)
    fail("block_n", fmt::format("block_n {} must be a multiple of 16 and of the instruction's K "
                                "({})",
                                t.block_n, k_instr));
  if (t.version == FlashVersion::kFa2) {
    if (t.warps < 1 || t.warps % c.sub_partitions != 0)
      fail("warps", fmt::format("{} warps: FA-2 runs 4 or 8 (a multiple of the {} "
                                "sub-partitions)",
                                t.warps, c.sub_partitions));
    if (t.block_m % (16 * t.warps) != 0)
      fail("block_m",
           fmt::format("block_m {} is not whole 16-row slabs for {} warps", t.block_m, t.warps));
    return;
  }
  if (t.block_m % kWgmmaM != 0 || t.block_m / kWgmmaM > kMaxWarpgroups)
    fail("block_m",
         fmt::format("block_m {}: FA-3 runs 1 to 3 consumer warpgroups of 64 rows", t.block_m));
  if (t.block_n > kWgmmaMaxN)
    fail("block_n",
         fmt::format("block_n {} exceeds wgmma's largest N ({})", t.block_n, kWgmmaMaxN));
  if (t.stages < 2) fail("stages", fmt::format("{} stages: the K/V pipeline needs 2", t.stages));
}

/// Registers per thread of FA-3: the CTA takes the register file (one CTA per SM, setmaxnreg
/// moves them to the consumers), as the GEMM mapper assumes for CUTLASS sm90 kernels.
std::int64_t fa3_regs(const GpuSmConfig& c, std::int64_t threads) {
  return std::min<std::int64_t>(255, c.registers / threads / 8 * 8);
}

void softmax_counts(const GpuSmConfig& c, FlashShape& s) {
  // Per thread (a warp instruction each): E score elements, O output elements, R rows (a thread
  // holds 2 rows of every 16-row slab of the mma / wgmma accumulator layout).
  const std::int64_t e = s.rows * s.block_n / 32, o = s.rows * s.head_dim / 32, r = s.rows / 8;
  // flash::Softmax: thread-local row max (E FMNMX), quad all-reduce (2 SHFL + 2 FMNMX per row)
  s.sm_max = e + 4 * r;
  // then per row the old/new max scale (FADD, FMUL, MUFU.EX2) and row_sum rescale (FMUL); per
  // element FFMA + MUFU.EX2 (exp2f(x * scale - max)) and FADD (row sum)
  s.sm_rest = 3 * r + 2 * e;
  s.sm_sfu = r + e;
  s.sm_first_rest = r + 2 * e;  // the first block: no old max, no rescale
  s.sm_first_sfu = e;
  s.p_convert = ceil_div(e, 2);  // P to 16 bit, two per F2FP
  s.o_rescale = o;
  s.sm_mask = kMaskOpsPerElement * e;
  // Epilogue: O x 1/row_sum (O FMUL), LSE (per row MUFU.RCP, MUFU.LG2 and FFMA), convert.
  s.ep_fp32 = o + ceil_div(o, 2) + r;
  s.ep_sfu = 2 * r;
  s.ep_st = ceil_div(o * s.out_bytes, 16);
  s.ep_smem_bytes = s.rows * s.head_dim * s.out_bytes;
  s.fp32_cycles = ceil_div(32 * c.sub_partitions, c.fp32_lanes);
  s.sfu_cycles = ceil_div(32 * c.sub_partitions, c.sfu_lanes);
  s.alu_cycles = ceil_div(32 * c.sub_partitions, c.alu_lanes);
}

/// FA-2's softmax per block and warp, as the SASS of its main loop issues it (ptxas 13.0,
/// sm_80 and sm_90; flash_fwd_kernel.h + softmax.h built with PyTorch's flags, and with the
/// flash-attn package's --use_fast_math; README "FA-2 softmax, counted"). Per thread: E scores,
/// O output elements, R rows.
///  * row max: E + 2R FMNMX (ALU), 2R SHFL (the quad all-reduce);
///  * per row: FSETP + FSEL (max == -inf), FMUL (max x scale), FFMA ((old - new max) x scale),
///    MUFU.EX2 of it and FMUL of row_sum (not in the first block);
///  * per score: the scale and max subtraction (fast math: one FFMA; PyTorch's UNFUSE_FMA:
///    FMUL + FADD), MUFU.EX2, FADD into row_sum; PyTorch's exp2f without fast math guards each
///    MUFU.EX2 with FSETP (ALU) and two predicated FMUL (issued either way);
///  * O rescale: O FMUL (not in the first block); P to 16 bit: E / 2 F2FP (ALU).
void fa2_softmax_counts(const FlashTile& t, FlashShape& s) {
  const std::int64_t e = s.rows * s.block_n / 32, o = s.rows * s.head_dim / 32, r = s.rows / 8;
  const std::int64_t ex2 = e + r, ex2_first = e;  // MUFU.EX2 per block
  s.fa2_max_alu = e + 2 * r;
  s.fa2_shfl = 2 * r;
  const std::int64_t scale = t.fast_math ? e : 2 * e;  // FFMA, or FMUL + FADD
  const std::int64_t guard_fp32 = t.fast_math ? 0 : 2, guard_alu = t.fast_math ? 0 : 1;
  s.fa2_fp32 = o + 3 * r + scale + e + guard_fp32 * ex2;
  s.fa2_alu = 2 * r + ceil_div(e, 2) + guard_alu * ex2;
  s.fa2_first_fp32 = r + scale + e + guard_fp32 * ex2_first;
  s.fa2_first_alu = 2 * r + ceil_div(e, 2) + guard_alu * ex2_first;
}

}  // namespace

const char* flash_version_name(FlashVersion v) { return v == FlashVersion::kFa2 ? "fa2" : "fa3"; }

FlashShape flash_shape(const GpuSmConfig& c, const FlashTile& t) {
  check_types(c, t);
  FlashShape s;
  s.elem_bytes = tc_type_bytes(t.in_type);
  s.k_instr = kKBytes / s.elem_bytes;
  check_dims(c, t, s.k_instr);
  s.fa3 = t.version == FlashVersion::kFa3;
  s.head_dim = t.head_dim;
  s.block_m = t.block_m;
  s.block_n = t.block_n;
  s.out_bytes = t.out_bytes;
  const std::int64_t sps = c.sub_partitions, rate_sp = c.tc_rate(t.in_type) / sps;
  const std::int64_t d = t.head_dim, e = s.elem_bytes;
  s.qk_steps = d / s.k_instr;
  s.pv_steps = t.block_n / s.k_instr;
  std::int64_t smem = t.block_m * d * e;  // Q
  if (s.fa3) {
    const std::int64_t groups = t.block_m / kWgmmaM;
    s.warps = 4 * (groups + 1);
    s.sp_warps = groups;
    s.rows = kWgmmaM / 4;
    s.qk_mma = s.pv_mma = 1;
    s.qk_ii = ceil_div(16 * t.block_n * s.k_instr, rate_sp);
    s.pv_ii = ceil_div(16 * d * s.k_instr, rate_sp);
    s.pingpong = t.pingpong && groups >= 2;
    // K and V stages, and a full + empty mbarrier (8 B each) per stage of K, V and for Q. O is
    // staged in the buffers the main loop has released (FA-3's shared storage overlaps them).
    smem += 2 * t.stages * t.block_n * d * e + 16 * (2 * t.stages + 1);
    s.resources.regs_per_thread = fa3_regs(c, 32 * s.warps);
  } else {
    s.warps = t.warps;
    s.sp_warps = t.warps / sps;
    s.rows = t.block_m / t.warps;
    const std::int64_t mt = s.rows / 16;
    s.qk_mma = mt * (t.block_n / 8);
    s.qk_ldm = mt + t.block_n / 16;  // Q (A) and K (B) fragments per k-step
    s.pv_mma = mt * (d / 8);
    s.pv_ldm = d / 16;  // V (B, ldmatrix.trans); P comes from registers
    s.qk_ii = s.pv_ii = c.mma_sync_ii(t.in_type);
    if (s.qk_ii < 2)
      fail("in_type", fmt::format("mma.sync would hold its pipe {} cycle: see the GEMM tile's "
                                  "mma_ii rule",
                                  s.qk_ii));
    s.cp_q = ceil_div(t.block_m * d * e, kCpAsyncWarpBytes * t.warps);
    s.cp_kv = ceil_div(t.block_n * d * e, kCpAsyncWarpBytes * t.warps);
    smem += 2 * t.block_n * d * e;  // one K and one V buffer (kernel_traits.h kSmemKVSize)
    s.resources.regs_per_thread = t.regs_per_thread;
  }
  s.ldm_cycles = ceil_div(kLdmatrixBytes * sps, c.smem_bytes_per_clock());
  softmax_counts(c, s);
  if (!s.fa3) fa2_softmax_counts(t, s);
  s.resources.threads = 32 * s.warps;
  s.resources.smem = Bytes(static_cast<std::uint64_t>(smem));
  occupancy(c, s.resources);  // throws when one CTA does not fit
  return s;
}

Bytes FlashShape::q_bytes(const FlashCtaWork& w) const {
  return Bytes(static_cast<std::uint64_t>(w.q_rows * head_dim * elem_bytes));
}

Bytes FlashShape::kv_bytes(const FlashCtaWork& w, std::int64_t block) const {
  const std::int64_t kv_rows = block == 0 ? w.first_rows : block_n;
  return Bytes(static_cast<std::uint64_t>(kv_rows * head_dim * elem_bytes));
}

Bytes FlashShape::o_bytes(const FlashCtaWork& w) const {
  return Bytes(static_cast<std::uint64_t>(w.q_rows * (head_dim * out_bytes + 4)));
}

std::int64_t flash_resident_ctas(const GpuSmConfig& c, const FlashLaunch& l) {
  const std::int64_t occ = occupancy(c, flash_shape(c, l.tile).resources).ctas;
  return l.max_resident > 0 ? std::min(occ, l.max_resident) : occ;
}

}  // namespace systole::models
