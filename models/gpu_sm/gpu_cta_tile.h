#pragma once
// A GEMM CTA as the SM runs it: the CTA tile (bm x bn x bk), its warp layout, pipeline stages,
// input type, copy engine and tensor-core instruction, and its epilogue; the work of one CTA of
// the grid (its output tile at its real, possibly partial, size and its K slice for split-K);
// and MainloopShape, the per-warp instruction counts both SM models derive from them.
//
// Two main loops, as CUTLASS writes them:
//  * multistage (cp.async + ldmatrix + mma.sync, sm_80): every warp copies a share of each
//    stage with cp.async, waits (cp.async.wait_group) and meets the others at __syncthreads
//    once per k-tile, loads its fragments with ldmatrix.x4 and issues mma.sync m16n8kK;
//  * warp-specialised (TMA + mbarrier + wgmma, sm_90a): one producer warp issues the TMA
//    copies of each stage once its slot is empty; consumer warpgroups wait on the stage's full
//    barrier, issue wgmma m64nNkK asynchronously, wait for the previous k-tile's wgmma group
//    (wgmma.wait_group 1) and release its slot.
// K per instruction is whatever 32 B of operand holds: k16 for fp16/bf16, k8 tf32, k32 fp8/int8.

#include <algorithm>
#include <cstdint>

#include "models/gpu_sm/gpu_occupancy.h"
#include "models/gpu_sm/gpu_sm_config.h"

namespace systole::models {

enum class CopyEngine { kCpAsync, kTma };
enum class MmaInstr { kMmaSync, kWgmma };

/// The tile configuration shared by every CTA of one GEMM kernel.
struct GemmCtaTile {
  std::int64_t bm = 128, bn = 128, bk = 32;
  /// mma.sync: the warp grid (warp tile bm/warps_m x bn/warps_n); wgmma: the grid of consumer
  /// warpgroups (warpgroup tile bm/warps_m x bn/warps_n, N of each wgmma = bn/warps_n).
  std::int64_t warps_m = 2, warps_n = 2;
  std::int64_t stages = 3;
  TcType in_type = TcType::kFp16;
  CopyEngine copy = CopyEngine::kCpAsync;
  MmaInstr instr = MmaInstr::kMmaSync;
  std::int64_t regs_per_thread = 128;  ///< as the compiler allocated them (occupancy)
  std::int64_t out_bytes = 2;          ///< per output element: 2 fp16/bf16, 4 fp32/int32 partials
  std::int64_t epilogue_fp32_ops = 0;  ///< FP32-lane ops per output element (bias, scale, ReLU)
  std::int64_t epilogue_sfu_ops = 0;   ///< SFU ops per output element (exp2, tanh for GELU)
  /// wgmma with swapped operands (cuBLAS's kernels for a skinny M, which compute C^T = B^T A^T):
  /// the instruction's m64 runs along the tile's N and its N (8..256) along the tile's M, so a
  /// tile 8 rows tall streams B through whole wgmmas. Loads, stores and the grid are unchanged.
  bool swap_ab = false;
};

/// One CTA of the grid: its output tile at its real size and its K slice.
struct CtaWork {
  std::int64_t id = 0;
  std::int64_t m0 = 0, n0 = 0;  ///< origin of the output tile in C
  std::int64_t m = 0, n = 0;    ///< real extent, at most bm x bn (edge tiles are smaller)
  std::int64_t k0 = 0, k = 0;   ///< the K slice: all of K, or one split-K part
  /// Hopper thread-block cluster along M (TMA multicast of B): the CTA's rank in its cluster
  /// and the cluster's size (1: none). A cluster's members have consecutive ids (rank 0 first),
  /// the same n0 and K slice, and run on distinct SMs. The SM models ignore both; the device's
  /// copy engines split each k-tile's B rows over the members and multicast them
  /// (models/gpu_sm/README.md, "TMA multicast").
  int cluster_rank = 0, cluster_size = 1;
};

/// Per-warp instruction counts and pipe costs of a tile on an SM; both models read these.
struct MainloopShape {
  bool wgmma = false;
  std::int64_t stages = 0;
  std::int64_t compute_warps = 0;   ///< warps that do math (mma.sync warps / consumer warpgroups)
  std::int64_t warps = 0;           ///< resident warps (wgmma: + a producer warpgroup of 4)
  std::int64_t producer_warp = -1;  ///< wgmma: the warp that issues TMA (warp 0)
  std::int64_t first_compute_warp = 0;
  std::int64_t wm = 0, wn = 0;    ///< warp tile (mma.sync) or warpgroup tile (wgmma)
  std::int64_t k_instr = 0;       ///< K of one mma / wgmma
  std::int64_t cp_per_warp = 0;   ///< cp.async.cg 16 B instructions per warp per k-tile
  std::int64_t ldm_per_step = 0;  ///< ldmatrix.x4 per warp per k-step (A then B fragments)
  std::int64_t mma_per_step = 0;  ///< mma.sync per warp per k-step; wgmma: per warp per k-step
  std::int64_t mma_ii = 0;        ///< tensor-pipe cycles of one instruction on a sub-partition
  std::int64_t ldm_cycles = 0;    ///< bank cycles of one ldmatrix.x4 on a sub-partition's share
  /// Bank cycles of one cp.async (LDGSTS) warp instruction's shared-memory writes on the same
  /// share: its data lands through the L1TEX data pipe that serves ldmatrix (README, "cp.async
  /// fills share the data pipe"); 0 for TMA, which writes through the async proxy.
  std::int64_t cp_smem_cycles = 0;
  std::int64_t acc_per_thread = 0;
  std::int64_t ep_fp32 = 0, ep_sfu = 0, ep_st = 0;  ///< epilogue instructions per warp
  std::int64_t fp32_cycles = 0, sfu_cycles = 0;     ///< pipe cycles of one warp instruction
  std::int64_t tma_per_tile = 2;                    ///< TMA instructions per k-tile (A, B)
  std::int64_t bm = 0, bn = 0, bk = 0;
  std::int64_t elem_bytes = 0, out_bytes = 0;
  CtaResources resources;

  /// Sub-partition of warp `w`.
  std::int64_t sp_of(std::int64_t w, std::int64_t sps) const { return w % sps; }
  std::int64_t k_tiles(const CtaWork& c) const { return (c.k + bk - 1) / bk; }
  /// K elements of k-tile kt (the last one may be partial).
  std::int64_t k_in_tile(const CtaWork& c, std::int64_t kt) const {
    return std::min(bk, c.k - kt * bk);
  }
  /// k-steps (instructions along K) of k-tile kt: a partial tile runs only its real steps.
  std::int64_t steps(const CtaWork& c, std::int64_t kt) const {
    return (k_in_tile(c, kt) + k_instr - 1) / k_instr;
  }
  /// Bytes of A and B that k-tile kt moves from global memory (real extents only).
  Bytes copy_bytes(const CtaWork& c, std::int64_t kt) const {
    return Bytes(static_cast<std::uint64_t>((c.m + c.n) * k_in_tile(c, kt) * elem_bytes));
  }
  Bytes store_bytes(const CtaWork& c) const {
    return Bytes(static_cast<std::uint64_t>(c.m * c.n * out_bytes));
  }
};

/// Validates `t` against the SM and derives its shape. Throws ConfigError (path `cta.<key>`)
/// for a tile the SM cannot run, with the reason and a fix.
MainloopShape mainloop_shape(const GpuSmConfig& c, const GemmCtaTile& t);

/// Checks that `w` is a CTA of tile `t` (1 <= m <= bm, 1 <= n <= bn, k >= 1).
void check_cta_work(const GemmCtaTile& t, const CtaWork& w);

}  // namespace systole::models
