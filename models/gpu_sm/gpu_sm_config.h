#pragma once
// Configuration of one GPU streaming multiprocessor (SM): architecture generation (which
// tensor-core instructions and copy engines it has), sub-partitions, tensor-core throughput per
// input type, instruction latencies, FP32/SFU lanes, register file, occupancy limits, shared
// memory (capacity, banks, bandwidth, latency) and clock. A preset (A100 SXM4, H100 SXM5; the
// numbers and their sources are in gpu_sm_presets.cpp) fills every key whose default is
// `preset`; any of them can be overridden key by key.

#include <cstdint>

#include "sim/config/schema.h"

namespace systole::models {

/// ampere: mma.sync + cp.async + ldmatrix (sm_80); hopper adds wgmma, TMA and mbarriers (sm_90a).
enum class GpuArch { kAmpere, kHopper };
enum class GpuSmPreset { kA100Sxm4, kH100Sxm5 };

/// Which model runs the SM's main loops: the tile-level one (the default) or the warp-level
/// reference (every warp, every cycle; same cycles, ~20-50x slower).
enum class GpuSmModel { kTile, kWarp };

/// Tensor-core input types. Accumulation is fp32, except int8 (int32).
enum class TcType { kFp16, kBf16, kTf32, kFp8E4M3, kFp8E5M2, kInt8 };

const char* gpu_arch_name(GpuArch a);
const char* gpu_sm_preset_name(GpuSmPreset p);
const char* tc_type_name(TcType t);
/// Bytes of one element in shared memory / registers (tf32 is stored as fp32).
std::int64_t tc_type_bytes(TcType t);
bool tc_type_is_int(TcType t);

/// The `gpu_sm` section, preset applied; cycles are SM clock cycles.
struct GpuSmConfig {
  GpuSmModel model = GpuSmModel::kTile;
  GpuSmPreset preset = GpuSmPreset::kA100Sxm4;
  GpuArch arch = GpuArch::kAmpere;
  std::int64_t sub_partitions = 0;  ///< processing blocks, each a warp scheduler + tensor core
  Hz clock{0};

  // Dense tensor-core throughput of the whole SM per clock (FMA or MAC); 0: type unsupported.
  std::int64_t tc_fp16_fma = 0, tc_bf16_fma = 0, tc_tf32_fma = 0, tc_fp8_fma = 0, tc_int8_mac = 0;
  /// Cycles a sub-partition's tensor core holds one mma.sync with a 32-byte K (m16n8k16 fp16/
  /// bf16, m16n8k8 tf32, m16n8k32 8-bit); 0: what the tensor rate gives (mma_sync_ii()).
  std::int64_t mma_sync_cycles = 0;
  std::int64_t mma_latency = 0;    ///< mma.sync: issue to accumulator ready
  std::int64_t wgmma_latency = 0;  ///< wgmma: end of its tensor-pipe occupancy to result ready

  std::int64_t fp32_lanes = 0;  ///< FP32 FMA per SM per clock
  std::int64_t sfu_lanes = 0;   ///< special-function results per SM per clock
  /// ALU-pipe results per SM per clock: compare/min/max (FMNMX, FSETP, FSEL), FP32-to-16-bit
  /// packing (F2FP), integer add and logic.
  std::int64_t alu_lanes = 0;

  // Occupancy limits (CUDA C++ Programming Guide, compute-capability table).
  std::int64_t registers = 0;  ///< 32-bit registers per SM
  std::int64_t max_warps = 0;
  std::int64_t max_ctas = 0;
  std::int64_t max_threads_per_cta = 0;
  std::int64_t reg_alloc_unit = 0;   ///< registers per warp are allocated in units of this
  Bytes smem_per_sm{0};              ///< shared-memory carve-out available to CTAs
  Bytes smem_per_block{0};           ///< the most one CTA may allocate
  Bytes smem_reserved_per_block{0};  ///< system shared memory added to every CTA
  Bytes smem_alloc_unit{0};          ///< a CTA's shared memory is rounded up to this

  std::int64_t smem_banks = 0;
  std::int64_t smem_bank_bytes = 0;
  std::int64_t smem_latency = 0;  ///< ldmatrix issue-to-data latency after its bank cycles

  /// A preset with every other key at its schema default.
  static GpuSmConfig from_preset(GpuSmPreset p);
  /// Copies the values of preset `p` into this config.
  void apply_preset(GpuSmPreset p);
  static const config::SchemaOf<GpuSmConfig>& schema();

  /// Tensor FMA (MAC) per SM per clock for `t`; 0 when the SM has no tensor path for it.
  std::int64_t tc_rate(TcType t) const;
  /// Cycles one mma.sync m16n8 with a 32-byte K of `t` holds its sub-partition's tensor pipe:
  /// mma_sync_cycles when set, else its MACs over the sub-partition's share of tc_rate(t).
  std::int64_t mma_sync_ii(TcType t) const;
  /// Shared-memory bytes per clock of the whole SM: banks x bank width (128 B on A100/H100).
  std::int64_t smem_bytes_per_clock() const { return smem_banks * smem_bank_bytes; }
};

/// The A100 SXM4 and H100 SXM5 SMs (gpu_sm_presets.cpp cites every number).
GpuSmConfig a100_sxm4_sm();
GpuSmConfig h100_sxm5_sm();

}  // namespace systole::models
