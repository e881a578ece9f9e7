#pragma once
// The fraction of the HBM's peak bandwidth that a stream of tile rows sustains, by the length of
// its contiguous pieces (DRAM row locality). Measured once per memory configuration on the
// memory's own timing model: the bank-level model (models/hbm) moves each probe stream through
// the chip's DMA request size and outstanding depth, so short pieces pay the row activations
// and bank timing the simulation will show; the bandwidth model sustains `hbm.efficiency`
// whatever the piece. The GEMM mapper divides each operand's HBM bytes by it.

#include <cstdint>
#include <vector>

#include "models/systems/tpu_chip/tpu_chip_config.h"

namespace systole::workloads {

/// Sustained fraction of peak HBM bandwidth by contiguous piece length (measured, interpolated).
class HbmEfficiency {
 public:
  /// Probes (or finds in this process's cache) the chip's memory.
  explicit HbmEfficiency(const models::TpuChipConfig& chip);
  /// Of a stream of `piece_bytes` pieces, each far from the previous one (a tile's rows at a
  /// matrix's pitch); `contiguous`: one linear range.
  double of(double piece_bytes, bool contiguous) const;

  /// The probed piece lengths (bytes); contiguous streams are probed apart.
  static const std::vector<double>& probe_pieces();

 private:
  std::vector<double> strided_;  // per probe piece
  double contiguous_ = 1;
};

}  // namespace systole::workloads
