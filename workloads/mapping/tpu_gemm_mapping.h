#pragma once
// How a GEMM maps onto a TPU chip: the work split over TensorCores and MXUs, the VMEM tile
// sizes (double-buffered operands, double-buffered fp32 output tile), the loop order
// (row blocks outer, then n, m, k inner: the output tile stays in VMEM while k advances),
// whether the A operand (re-read once per n tile) is staged in CMEM, whether B stays in VMEM
// across the m tiles of an n tile, and the analytical bounds of that mapping. Tilings are chosen
// by searching candidates with the analytical model (costs in map_gemm's comments).

#include <cstdint>
#include <string>

#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "workloads/ir/layer.h"

namespace systole::workloads {

struct GemmBounds {
  std::uint64_t macs = 0;
  double compute_cycles = 0;           ///< MACs / peak MACs per cycle of the whole chip
  std::uint64_t compulsory_bytes = 0;  ///< A, B read once, C written once
  std::uint64_t planned_bytes = 0;     ///< what the chosen tiling moves to/from HBM
  double hbm_cycles = 0;               ///< compulsory_bytes at peak HBM bandwidth, in cycles
  double roofline_cycles = 0;          ///< max(compute_cycles, hbm_cycles)
  double intensity = 0;                ///< FLOPs per compulsory byte
  std::string bound;                   ///< "compute" or "hbm"
};

struct GemmMapping {
  std::int64_t rows = 0;   ///< GEMM M (batch folded in)
  std::int64_t depth = 0;  ///< GEMM K
  bool split_n = true;     ///< cores split N (else M)
  std::int64_t cores_used = 0;
  std::int64_t core_extent = 0;  ///< extent of the split dimension per core (last may be less)
  std::int64_t tm = 0, tn = 0, tk = 0;  ///< VMEM tile per core
  bool mxu_split_m = false;             ///< MXUs take row slices of tm (else column slices of tn)
  /// A's columns [0, cmem_k) are staged in CMEM: the first pass over an A tile loads it from
  /// HBM and copies it to CMEM, later passes (other n tiles, other cores) load it from CMEM.
  /// 0: nothing staged. A multiple of tk, or K.
  std::int64_t cmem_k = 0;
  /// A does not fit CMEM: K runs in chunks of cmem_k columns (each staged in turn) and the
  /// output tiles' fp32 partial sums wait in CMEM between chunks, so A and B still move once.
  bool k_chunked = false;
  /// A does not fit CMEM whole: M runs in blocks of this many rows (a multiple of tm), each
  /// block's A rows staged in CMEM in turn (every column), so A moves once and B once per block.
  /// M when there is one block.
  std::int64_t row_block = 0;
  /// B stationary: a core's B panel (all of K x tn) is loaded into VMEM once per n tile (per
  /// row block) and read there by every m tile, double-buffered across n tiles; else each k
  /// step loads its B tile again for every m tile.
  bool b_panel = false;
  std::uint64_t cmem_bytes = 0;  ///< planned CMEM traffic (staging writes + re-reads)
  /// HBM bytes the DMA engines move for bounds.planned_bytes: each contiguous piece of a tile
  /// rounded up to the DMA granule (what the simulation's HBM traffic counts).
  std::uint64_t moved_bytes = 0;
  std::uint64_t vmem_bytes = 0;  ///< VMEM footprint of the tiling
  double estimated_cycles = 0;   ///< analytical estimate used to pick it
  GemmBounds bounds;
  /// "2048x512x512" ("/m" when the MXUs split rows; " A@cmem" when A is staged in CMEM,
  /// " A[:k]@cmem" when only its first k columns are, " A@cmem k/6" when K runs in 6 chunks,
  /// " A@cmem m/4" when M runs in 4 row blocks; " B@vmem" when B stays in VMEM across m tiles)
  std::string tile_text() const;
};

/// Where a GEMM's activations (A in, C out) live and how often A elements are re-fetched.
struct GemmTraffic {
  double a_reuse = 1;     ///< HBM bytes of A tiles are divided by this (implicit im2col)
  bool resident = false;  ///< A and C stay in on-chip memory (half of VMEM): only B moves
  /// A fused epilogue reads this many more tensors shaped like the stored output (residual
  /// adds), one tile of each per output tile, into one VMEM buffer, ...
  int epilogue_inputs = 0;
  double epilogue_ops = 0;  ///< ... and costs this many vector-lane operations per element stored
  bool a_in_cmem = false;   ///< A waits in CMEM (row-major M x K from address 0): every pass reads
                            ///< it there, nothing is staged
  bool b_is_weight = true;  ///< B is a weight (in HBM from the start); false: an activation
                            ///< (attention's K and V), read after the layer before
  /// B, a weight streamed through the weight FIFO, sits in memory as the FIFO's array-sized
  /// tiles, each contiguous (MappingOptions::weights_tiled); false: row-major.
  bool b_tiled = false;
};

/// Picks the tiling; throws WorkloadError naming the layer and sizes when nothing fits VMEM or
/// the MXU accumulators (2 x output tile rows per MXU, MxuConfig::accumulators).
GemmMapping map_gemm(const models::TpuChipConfig& chip, const Layer& layer,
                     const GemmTraffic& traffic = {});

/// CMEM bytes of rows x cols staged A elements: tile-major (each tm x tk tile contiguous, edge
/// tiles padded to full ones), or an implicit im2col's input footprint (divided by a_reuse).
std::uint64_t cmem_staged_bytes(std::int64_t rows, std::int64_t cols, std::int64_t tm,
                                std::int64_t tk, std::uint64_t element_bytes, double a_reuse);

/// How many leading columns of A (a multiple of `tk`, or K) fit the chip's CMEM when all M
/// rows are staged: 0 when CMEM cannot take one column tile.
std::int64_t cmem_staged_k(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t K,
                           std::int64_t tm, std::int64_t tk, std::uint64_t element_bytes,
                           double a_reuse);

/// Where the fp32 partial sums of C start in CMEM: after `k` staged columns of all M rows.
std::uint64_t cmem_partials_base(std::int64_t M, std::int64_t k, std::int64_t tm, std::int64_t tk,
                                 std::uint64_t element_bytes, double a_reuse);

/// The widest chunk of K (a multiple of `tk` below K) whose staged columns and C's partial sums
/// (M x N fp32) fit the chip's CMEM together: 0 when none does.
std::int64_t cmem_chunk_k(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t N,
                          std::int64_t K, std::int64_t tm, std::int64_t tk,
                          std::uint64_t element_bytes, double a_reuse);

/// The rows of A (a multiple of `tm`, below M) whose every column fits the chip's CMEM: a row
/// block when A does not fit whole; 0 when not even `tm` rows fit (or all M rows do).
std::int64_t cmem_row_block(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t K,
                            std::int64_t tm, std::int64_t tk, std::uint64_t element_bytes,
                            double a_reuse);

/// VMEM bytes of one A slot of tm x tk: the input footprint of an implicit im2col tile
/// (divided by a_reuse), rounded up.
std::uint64_t gemm_a_slot_bytes(std::int64_t tm, std::int64_t tk, std::uint64_t element_bytes,
                                double a_reuse);

/// The bounds of a layer on a chip, independent of the tiling (planned_bytes left 0).
GemmBounds gemm_bounds(const models::TpuChipConfig& chip, const Layer& layer);

}  // namespace systole::workloads
