#pragma once
// How a GEMM maps onto a GPU device as CUTLASS 2.x/3.x and cuBLAS heuristics choose it: a CTA
// tile and warp layout from the architecture's CUTLASS configurations (Ampere: multistage
// cp.async + mma.sync; Hopper: warp-specialised, persistent TMA + wgmma), pipeline stages from
// the shared memory one block may have, CTAs per SM from models/gpu_sm's occupancy calculator,
// waves over the SMs, split-K (or stream-K) when the tiles fill less than one wave, and the
// rasterisation (tile order and swizzle group) that decides how often A and B come from HBM
// rather than L2. Every candidate gets an analytical estimate; the best one is returned with its
// bounds and the reasons (costs in gpu_gemm_mapping.cpp's comments).

#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu_sm/gpu_cta_tile.h"
#include "models/systems/gpu_device/gpu_device_config.h"
#include "workloads/ir/layer.h"

namespace systole::workloads {

/// What the GPU GEMM mapper may consider.
struct GpuMappingOptions {
  bool split_k = true;            ///< split K when the tiles fill less than one wave
  bool stream_k = false;          ///< also consider a stream-K (persistent, even K share) kernel
  std::int64_t max_split_k = 16;  ///< most K slices a split-K kernel uses
  /// > 0: only this many K slices (1: data-parallel only), when K has that many k-tiles
  std::int64_t split_k_slices = 0;
  std::int64_t tile_m = 0;     ///< > 0: only CTA tiles of this many rows
  std::int64_t tile_n = 0;     ///< > 0: only CTA tiles of this many columns
  std::int64_t tile_k = 0;     ///< > 0: k-tiles of this many elements (a named kernel's BK)
  std::int64_t cluster_m = 0;  ///< > 0: thread-block clusters of this many CTAs along M
  std::int64_t stages = 0;     ///< > 0: only this many pipeline stages
  /// > 0 (both): only warp (mma.sync) or consumer-warpgroup (wgmma) grids of warps_m x warps_n;
  /// with tile_m and tile_n also set, that CTA configuration is run even when it is not one of
  /// the built-in candidates (a named vendor kernel, e.g. cuBLAS's 128x320 cooperative tile).
  std::int64_t warps_m = 0;
  std::int64_t warps_n = 0;
  /// Attention layers: one FlashAttention kernel, or unfused (QK^T GEMM, softmax, PV GEMM).
  enum class Attention { kFlash, kUnfused };
  Attention attention = Attention::kFlash;
  bool force_fa2 = false;      ///< FlashAttention-2 on sm_90 too (PyTorch's flash backend)
  bool fa2_fast_math = false;  ///< FA-2 built as the flash-attn package (--use_fast_math)
  /// A convolution that is not a plain GEMM (a filter wider than 1x1 or a stride), run as
  /// cuDNN runs it: one of its implicit-GEMM fprop kernels, which have neither cuBLAS's
  /// swapped-operand skinny tiles nor a split-K reduction (set by the lowering, not a config
  /// key; the lowering also turns split_k off for every convolution).
  bool implicit_gemm = false;
  /// An implicit-GEMM convolution's filter taps (R x S) and input channels per tap (set by the
  /// lowering; 0: not a convolution). CUTLASS's analytic and optimized fprop iterators walk K
  /// tap by tap in k-tiles of C, so a k-tile never spans two taps and K costs
  /// taps x ceil(C / bk) x bk (NVIDIA/cutlass include/cutlass/conv/conv2d_problem_size.h,
  /// implicit_gemm_k_iterations); with C below bk the few-channels iterator packs taps (K as is).
  std::int64_t conv_taps = 0;
  std::int64_t conv_channels = 0;
  /// > 0: the bytes of an implicit-GEMM convolution's input image, the A operand's distinct
  /// bytes (its taps re-read them: im2col's M x K elements are up to R x S times as many).
  std::int64_t conv_image_bytes = 0;
};

/// K as an implicit-GEMM convolution's k-tiles of `bk` cover it (see conv_taps above).
std::int64_t gpu_implicit_gemm_k(const GpuMappingOptions& options, std::int64_t k, std::int64_t bk);

enum class GpuDecomposition { kDataParallel, kSplitK, kStreamK };
const char* gpu_decomposition_name(GpuDecomposition d);

/// Roofline bounds of the chosen mapping, in SM clock cycles.
struct GpuGemmBounds {
  std::uint64_t macs = 0;
  double compute_cycles = 0;           ///< MACs at the device's dense tensor peak
  std::uint64_t compulsory_bytes = 0;  ///< A, B read once, C written once
  double hbm_cycles = 0;               ///< the mapping's HBM bytes at peak HBM bandwidth
  double l2_cycles = 0;                ///< the mapping's L2 bytes at peak L2 bandwidth
  double roofline_cycles = 0;          ///< max of the three
  std::string bound;                   ///< "compute", "hbm" or "l2"
};

/// The kernel the mapper chose for one GEMM, with its estimate and bounds.
struct GpuGemmMapping {
  std::int64_t m = 0, n = 0, k = 0;  ///< GEMM M (batch folded in), N, K
  models::GemmCtaTile tile;          ///< what the SM models run (out_bytes 4 for K partials)
  models::Occupancy occupancy;       ///< of one CTA of `tile` on an SM
  std::int64_t ctas_per_sm = 0;
  std::int64_t tiles_m = 0, tiles_n = 0;  ///< output tiles along M and N
  GpuDecomposition decomposition = GpuDecomposition::kDataParallel;
  std::int64_t split_k = 1;     ///< K slices per output tile (split-K)
  std::int64_t k_slice = 0;     ///< K of each slice (a multiple of bk; the last may be less)
  std::int64_t grid = 0;        ///< CTAs launched (stream-K: persistent workers)
  std::int64_t waves = 0;       ///< ceil(work units / (SMs x CTAs per SM))
  bool persistent = false;      ///< one CTA per SM slot loops over tiles (CUTLASS 3 sm90 kernels)
  bool raster_along_n = false;  ///< swizzle groups of tile columns (else of tile rows)
  std::int64_t swizzle = 1;     ///< tiles of a swizzle group along the raster's short side
  std::int64_t cluster_m = 1;   ///< Hopper: CTAs of a thread-block cluster along M (B multicast)
  std::uint64_t hbm_bytes = 0;  ///< estimated HBM reads + writes
  std::uint64_t l2_bytes = 0;   ///< estimated SM <-> L2 bytes
  double mainloop_efficiency = 0;  ///< tensor-pipe share of the main loop's bottleneck
  double latency_hiding = 0;       ///< fraction of the memory latency the stages cover (<= 1)
  double compute_cycles = 0;       ///< the busiest SM's tensor work with the above
  double estimated_cycles = 0;     ///< launch + fill + max(compute, HBM, L2)
  double estimated_seconds = 0;
  std::int64_t candidates = 0;  ///< candidates estimated
  GpuGemmBounds bounds;
  std::string why;  ///< the choice and why, for people

  /// "128x256x64/4 wg2x1 1cta 16w" (+ " sk3" split-K, " streamk", " swz8n" N-raster
  /// swizzle 8, " c2x1" a 2x1 cluster)
  std::string tile_text() const;
};

/// Picks the kernel; throws WorkloadError naming the layer when the device has no tensor path
/// for its type (fp8 on A100, int32) or the GEMM is empty.
GpuGemmMapping map_gpu_gemm(const models::GpuDeviceConfig& device, const Layer& layer,
                            const GpuMappingOptions& options = {});

/// The work of every CTA (stream-K: every worker's segment of a tile), in launch order; the
/// union covers every output element and K index exactly once.
std::vector<models::CtaWork> gpu_cta_works(const GpuGemmMapping& mapping);

/// Tensor-core input type of a layer dtype: bf16, fp8 e4m3/e5m2, int8; fp32 runs as tf32
/// (cuBLAS with TF32 enabled). Throws WorkloadError for int32.
models::TcType gpu_tc_type(const Layer& layer);

}  // namespace systole::workloads
