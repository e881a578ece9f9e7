#pragma once
// How an attention layer maps onto a GPU device as FlashAttention runs it: FA-2 on sm_80 (and on
// sm_90 when asked: PyTorch's flash backend), FA-3 on sm_90; the kernel's block sizes by head
// dimension as the FlashAttention code picks them (FA-2 flash_fwd_launch_template.h, FA-3
// hopper/tile_size.h), the grid (batch x heads x ceil(seq_q / block_m) tiles), CTAs per SM,
// waves, an analytical estimate and the roofline bounds; and the launch (every tile with the
// K/V blocks it visits) that models::GpuAttentionModel runs.

#include <cstdint>
#include <string>

#include "models/gpu_sm/gpu_attention.h"
#include "models/systems/gpu_device/gpu_device_config.h"
#include "workloads/ir/layer.h"

namespace systole::workloads {

/// What the GPU attention mapper may consider.
struct GpuAttentionOptions {
  bool force_fa2 = false;  ///< run FlashAttention-2 on sm_90 too (PyTorch's flash backend)
  /// FA-2 as the flash-attn package builds it (--use_fast_math), not as PyTorch does
  /// (models::FlashTile::fast_math).
  bool fa2_fast_math = false;
};

/// Roofline bounds of the mapping, in SM clock cycles.
struct GpuAttentionBounds {
  double flops = 0;           ///< 4 b h sq skv d, halved when causal (the usual convention)
  double compute_cycles = 0;  ///< flops at the device's dense tensor peak
  std::uint64_t compulsory_bytes = 0;  ///< Q, K, V read once, O written once
  double hbm_cycles = 0;               ///< the mapping's HBM bytes at peak bandwidth
  double roofline_cycles = 0;          ///< the larger
  std::string bound;                   ///< "compute" or "hbm"
};

/// The FlashAttention kernel the mapper chose for one attention layer.
struct GpuAttentionMapping {
  /// The shape the kernel runs: the layer's, or for a one-token decode step with grouped-query
  /// heads the packed one (heads = K/V heads, seq_q = group, not causal).
  AttentionShape shape;
  models::FlashTile tile;
  models::Occupancy occupancy;
  std::int64_t ctas_per_sm = 0;
  std::int64_t m_blocks = 0;      ///< ceil(seq_q / block_m)
  std::int64_t n_blocks = 0;      ///< ceil(seq_kv / block_n)
  std::int64_t tiles = 0;         ///< batch x heads x m_blocks x splits
  std::int64_t splits = 1;        ///< split-KV: K/V splits per query tile (flash-decoding)
  bool packed_gqa = false;        ///< decode: a K/V head's query heads packed as one tile's rows
  std::int64_t block_visits = 0;  ///< K/V blocks all tiles visit (causal: fewer)
  std::int64_t waves = 0;         ///< ceil(tiles / (SMs x CTAs per SM))
  bool persistent = false;        ///< FA-3: one CTA per SM slot loops over tiles
  std::uint64_t hbm_bytes = 0;    ///< estimated HBM reads + writes
  double estimated_cycles = 0;    ///< launch + max(busiest SM's tensor work, HBM)
  double estimated_seconds = 0;
  GpuAttentionBounds bounds;
  std::string why;  ///< the choice and why, for people

  /// "fa3 128x176 d128 wg2 pp 1cta 2w"
  std::string tile_text() const;
};

/// Picks the kernel; throws WorkloadError naming the layer for a shape the kernels cannot run
/// (head_dim above 256, fp8 on A100 or under FA-2, empty or malformed shapes).
GpuAttentionMapping map_gpu_attention(const models::GpuDeviceConfig& device, const Layer& layer,
                                      const GpuAttentionOptions& options = {});

/// Every tile in launch order (blockIdx order, m_block fastest; FA-3 causal: in L2-sized
/// sections of heads, longest tiles first, as its scheduler hands them out), with the K/V
/// blocks each visits, on `sms` SMs.
models::FlashLaunch gpu_attention_launch(const GpuAttentionMapping& mapping, int sms);

/// The global-memory port to run a launch against until the device's L2/HBM models answer:
/// each SM behind its crossbar port (l2.port_bandwidth), all SMs behind one stage at the HBM
/// peak scaled up by the launch's requested bytes over the mapping's HBM bytes (the L2 serves
/// the K/V re-reads; at most the L2 bandwidth), latency = L2 hit + half the far-partition
/// penalty + HBM latency (the GEMM mapper's average miss).
models::LatencyBandwidthPort gpu_attention_port(const models::GpuDeviceConfig& device,
                                                const GpuAttentionMapping& mapping,
                                                const models::FlashLaunch& launch);

}  // namespace systole::workloads
