#pragma once
// How a GEMM maps onto a TPU chip: the work split over TensorCores and MXUs, the VMEM tile
// sizes (double-buffered operands, double-buffered fp32 output tile), the loop order
// (n outer, m, k inner: the output tile stays in VMEM while k advances), and the analytical
// bounds of that mapping. Tiles are chosen by searching candidates with the analytical model.

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
  std::int64_t rows = 0;  ///< GEMM M (batch folded in)
  bool split_n = true;    ///< cores split N (else M)
  std::int64_t cores_used = 0;
  std::int64_t core_extent = 0;  ///< extent of the split dimension per core (last may be less)
  std::int64_t tm = 0, tn = 0, tk = 0;  ///< VMEM tile per core
  bool mxu_split_m = false;             ///< MXUs take row slices of tm (else column slices of tn)
  std::uint64_t vmem_bytes = 0;         ///< VMEM footprint of the tiling
  double estimated_cycles = 0;          ///< analytical estimate used to pick it
  GemmBounds bounds;
  std::string tile_text() const;  ///< "2048x512x512" ("/m" when the MXUs split rows)
};

/// Picks the tiling; throws WorkloadError naming the layer and sizes when nothing fits VMEM or
/// the MXU accumulators (2 x output tile rows per MXU, MxuConfig::accumulators).
/// Where a GEMM's activations (A in, C out) live and how often A elements are re-fetched.
struct GemmTraffic {
  double a_reuse = 1;     ///< HBM bytes of A tiles are divided by this (implicit im2col)
  bool resident = false;  ///< A and C stay in on-chip memory (half of VMEM): only B moves
};

GemmMapping map_gemm(const models::TpuChipConfig& chip, const Layer& layer,
                     const GemmTraffic& traffic = {});

/// The bounds of a layer on a chip, independent of the tiling (planned_bytes left 0).
GemmBounds gemm_bounds(const models::TpuChipConfig& chip, const Layer& layer);

}  // namespace systole::workloads
