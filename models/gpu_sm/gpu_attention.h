#pragma once
// FlashAttention forward on the GPU SM model: the CTAs of one FlashAttention-2 (sm_80 code,
// also what PyTorch's flash backend runs on H100) or FlashAttention-3 (sm_90a) forward kernel on
// 1..N SMs, timed per warp *section* in closed form from one sub-partition's pipes (tensor,
// shared-memory port, FP32 lanes, SFU, issue), with global memory behind GmemPort: one request
// per Q-tile load, per K_j and V_j block copy and per O store (README "FlashAttention").
//
//  * FA-2 (Dao 2023; Dao-AILab/flash-attention csrc/flash_attn/src/flash_fwd_kernel.h):
//    `warps` warps share a CTA of block_m query rows (16-row slabs, block_m / warps rows each);
//    per K/V block j: __syncthreads, cp.async of V_j, S = Q K_j^T (ldmatrix + mma.sync),
//    __syncthreads once V_j landed, cp.async of K_j+1, softmax (row max, exp2, row sum, rescale
//    of O) on the FP32 lanes and SFU, O += P V_j (P from registers, V by ldmatrix.trans). A
//    warp's softmax never overlaps its own mma.sync; other warps' (other CTAs') do.
//  * FA-3 (Shah et al. 2024; hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp): a producer warp issues
//    TMA copies of Q, K_j and V_j into `stages`-deep K and V pipelines; block_m / 64 consumer
//    warpgroups issue wgmma asynchronously: S_j = Q K_j^T and O += P_j-1 V_j-1 together, then
//    softmax of S_j while P_j-1 V_j-1 runs (intra-warpgroup overlap), the warpgroups taking turns
//    to issue their GEMMs (ping-pong: one warpgroup's softmax under the other's GEMMs). The
//    kernel is persistent: each CTA slot takes tiles from a queue and its producer loads the next
//    tile's Q and K while the consumers finish the current one.
// Plain C++; no reference model below it (the GEMM tile model's ladder covers the pipes).

#include <cstdint>
#include <memory>
#include <vector>

#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_occupancy.h"
#include "models/gpu_sm/gpu_sm_config.h"

namespace systole::models {

enum class FlashVersion { kFa2, kFa3 };
const char* flash_version_name(FlashVersion v);

/// The kernel traits of one FlashAttention forward kernel (one head dimension, one tile).
struct FlashTile {
  FlashVersion version = FlashVersion::kFa2;
  std::int64_t head_dim = 128;
  std::int64_t block_m = 128, block_n = 64;  ///< query rows and K/V rows per block
  std::int64_t warps = 4;                    ///< FA-2: warps per CTA; FA-3: unused
  std::int64_t stages = 2;                   ///< FA-3: K and V pipeline depth; FA-2: unused
  bool pingpong = true;  ///< FA-3: warpgroups take turns issuing GEMMs (needs >= 2)
  TcType in_type = TcType::kBf16;
  std::int64_t out_bytes = 2;          ///< per element of O
  std::int64_t regs_per_thread = 255;  ///< FA-2, as the compiler allocated them (occupancy)
  /// FA-2's build. false: PyTorch's (UNFUSE_FMA, no --use_fast_math: the score scale is FMUL +
  /// FADD and each exp2f is MUFU.EX2 guarded by FSETP and two predicated FMUL); true: the
  /// flash-attn package's (--use_fast_math: FFMA + MUFU.EX2). FA-3 ignores it.
  bool fast_math = false;
};

/// One tile of the grid: block_m query rows of one (batch, head) and the K/V blocks it visits,
/// from the last along seq_kv down (the kernels' order: the masked blocks come first).
struct FlashCtaWork {
  std::int64_t id = 0;
  std::int64_t head = 0;        ///< batch x heads index (for the device's addresses)
  std::int64_t m_block = 0;     ///< block index along seq_q
  std::int64_t q_rows = 0;      ///< real rows, 1..block_m
  std::int64_t n_blocks = 0;    ///< K/V blocks visited, >= 1
  std::int64_t masked = 0;      ///< the first `masked` blocks visited apply the causal mask
  std::int64_t first_rows = 0;  ///< K/V rows of the first block visited, 1..block_n
  /// Split-KV (flash-decoding): the tile's K/V blocks are kv_block0 .. kv_block0 + n_blocks - 1
  /// of its head (0 without splits), and its fp32 partial O and LSE go to slab `split`.
  std::int64_t kv_block0 = 0;
  std::int64_t split = 0;
};

/// A FlashAttention forward kernel on `sms` SMs: each SM holds `resident` CTA slots (occupancy,
/// capped by max_resident when > 0); a free slot takes the next tile in list order (the
/// hardware CTA scheduler for FA-2, whose first wave gives every SM one CTA before any gets a
/// second; the persistent tile scheduler for FA-3).
struct FlashLaunch {
  FlashTile tile;
  std::vector<FlashCtaWork> ctas;
  int sms = 1;
  std::int64_t max_resident = 0;
  std::int64_t splits = 1;  ///< K/V splits per query tile (> 1: partials and a combine kernel)
};

/// Per-warp instruction counts and pipe costs both kernels' sections are timed from.
struct FlashShape {
  bool fa3 = false;
  std::int64_t warps = 0;     ///< resident warps per CTA (FA-3: + a producer warpgroup)
  std::int64_t sp_warps = 0;  ///< compute warps of one CTA on one sub-partition
  std::int64_t rows = 0;      ///< query rows per compute warp (FA-3: 16 of a warpgroup's 64)
  std::int64_t k_instr = 0;   ///< K of one mma.sync / wgmma
  std::int64_t qk_steps = 0;  ///< k-steps of S = Q K^T (head_dim / k_instr)
  std::int64_t pv_steps = 0;  ///< k-steps of O += P V (block_n / k_instr)
  std::int64_t qk_mma = 0, pv_mma = 0;  ///< mma.sync / wgmma per k-step per warp
  std::int64_t qk_ldm = 0, pv_ldm = 0;  ///< FA-2: ldmatrix.x4 per k-step per warp
  std::int64_t qk_ii = 0, pv_ii = 0;    ///< tensor-pipe cycles of one instruction
  std::int64_t ldm_cycles = 0;          ///< bank cycles of one ldmatrix.x4 on one sub-partition
  std::int64_t cp_q = 0, cp_kv = 0;     ///< FA-2: cp.async (16 B/thread) per warp per Q / K,V block
  // Softmax of one block, warp instructions: row max, (shuffles), then the rest. FA-3's; FA-2
  // uses sm_sfu, sm_first_sfu and sm_mask and its own fa2_* counts below.
  std::int64_t sm_max = 0, sm_rest = 0, sm_sfu = 0, sm_mask = 0;
  std::int64_t sm_first_rest = 0, sm_first_sfu = 0;  ///< the first block (no rescale)
  std::int64_t p_convert = 0, o_rescale = 0;         ///< FA-3 splits these off the softmax
  std::int64_t ep_fp32 = 0, ep_sfu = 0, ep_st = 0;   ///< epilogue per warp
  std::int64_t ep_smem_bytes = 0;                    ///< O written to shared memory per warp
  // FA-2, counted from the kernel's SASS (gpu_attention_shape.cpp): the row max's FMNMX (ALU)
  // and SHFL, then the rest of the block's softmax per pipe, P's conversion and O's rescale in
  // it; the first block has no rescale. Causal diagonal blocks add sm_mask ALU instructions.
  std::int64_t fa2_max_alu = 0, fa2_shfl = 0;
  std::int64_t fa2_fp32 = 0, fa2_alu = 0, fa2_first_fp32 = 0, fa2_first_alu = 0;
  std::int64_t fp32_cycles = 0, sfu_cycles = 0, alu_cycles = 0;  ///< pipe cycles of one warp instr.
  std::int64_t elem_bytes = 0;
  std::int64_t head_dim = 0, block_m = 0, block_n = 0, out_bytes = 0;
  bool pingpong = false;
  CtaResources resources;

  Bytes q_bytes(const FlashCtaWork& w) const;
  Bytes kv_bytes(const FlashCtaWork& w, std::int64_t block) const;  ///< one of K_j or V_j
  Bytes o_bytes(const FlashCtaWork& w) const;                       ///< O and the row LSE
};

/// Validates `t` on the SM and derives its shape. Throws ConfigError (path `flash.<key>`) for a
/// tile the SM cannot run, with the reason and a fix.
FlashShape flash_shape(const GpuSmConfig& c, const FlashTile& t);

/// One tile's timeline, in SM cycles.
struct FlashCtaRecord {
  std::int64_t id = 0;
  int sm = 0, slot = 0;
  std::uint64_t start = 0;   ///< its first copy may issue
  std::uint64_t finish = 0;  ///< cycle after its store issued
  std::uint64_t store_done = 0;
};

/// The record of one launch. Busy cycles are one sub-partition's (all four run alike).
struct FlashRun {
  std::uint64_t cycles = 0;  ///< last store completion
  std::int64_t resident = 0;
  std::vector<FlashCtaRecord> ctas;  ///< in the order tiles were taken
  std::vector<std::uint64_t> tensor_busy, smem_busy, fp32_busy, sfu_busy;  ///< per SM
  std::uint64_t requests = 0;
  std::uint64_t bytes = 0;  ///< requested from / written to global memory
};

/// The FlashAttention model one event at a time, for a driver whose port answers late (the GPU
/// device's SystemC shell, models/gpu_sm/gpu_sm_module.h): the same protocol as
/// GpuSmTileStepper. A request answered kGmemPending keeps its context (GmemRequest::token) and
/// what follows it runs when arrived() brings the answer; the driver steps only events no later
/// than what it knows of the memory. With an immediate port, stepping to the end is
/// GpuAttentionModel::run.
class GpuAttentionStepper {
 public:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  /// Throws ConfigError for a tile the SM cannot run.
  GpuAttentionStepper(const GpuSmConfig& c, GmemPort& port, const FlashLaunch& launch);
  ~GpuAttentionStepper();
  GpuAttentionStepper(const GpuAttentionStepper&) = delete;
  GpuAttentionStepper& operator=(const GpuAttentionStepper&) = delete;

  /// Cycle of the next event, or kNone (the launch is over once pending() is 0 too).
  std::uint64_t next_time() const;
  /// Requests answered kGmemPending and not yet arrived().
  std::size_t pending() const;
  /// Handles the next event (requests it issues go to the port).
  void step();
  /// The late answer to request `token`: its data landed (or its store completed) at `cycle`.
  void arrived(std::uint64_t token, std::uint64_t cycle);
  /// The record, once nothing is left.
  FlashRun finish();

  class Engine;

 private:
  std::unique_ptr<Engine> engine_;
};

/// FlashAttention forward on 1..N SMs: one closed-form event per warp section over one
/// representative sub-partition per SM (the warps of a CTA are spread evenly over the four and
/// run the same code). Simplifications: README "FlashAttention".
class GpuAttentionModel {
 public:
  GpuAttentionModel(const GpuSmConfig& c, GmemPort& port) : cfg_(c), port_(port) {}
  /// Runs the launch; throws ConfigError for a tile the SM cannot run or a malformed tile.
  FlashRun run(const FlashLaunch& launch);

 private:
  const GpuSmConfig& cfg_;
  GmemPort& port_;
};

/// Resident CTAs per SM for a launch: occupancy, capped by max_resident.
std::int64_t flash_resident_ctas(const GpuSmConfig& c, const FlashLaunch& l);

}  // namespace systole::models
