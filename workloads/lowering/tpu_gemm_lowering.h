#pragma once
// Lowers a mapped GEMM to the chip program: per core, for each (n tile, m tile) output tile,
// for each k step: two DMA loads (A and B tiles into one of two VMEM slots) and one matmul per
// MXU on its slice of the n tile; after the last k step, a DMA store of the output tile.
// Double buffering is expressed as dependencies: a load into a slot waits for the matmuls that
// last read that slot (and the CMEM copy that read it); the first matmul of an output tile waits
// for the store of the tile that used the same accumulator buffer two tiles earlier. When the
// mapping stages A in CMEM (cmem_k > 0), the first pass over a staged A tile loads it from HBM and
// copies it from VMEM to CMEM; every later pass (later n tiles, other cores) loads it from CMEM
// after that copy. When A fits CMEM only in row blocks (GemmMapping::row_block), the blocks run
// one after another, each staged in turn at the same CMEM place (a block's copies wait for the
// previous block's readers). With B stationary (GemmMapping::b_panel) the first m tile of an n
// tile loads each k step's B tile into its place in the n tile's VMEM panel and the later m tiles
// read it there; a panel is reloaded once its readers of two n tiles ago are done. With a weight
// FIFO (MxuConfig::weight_fifo, TPU v1) no B tile enters VMEM: each MXU's slice streams through the
// FIFO in array-sized tiles, one load and one matmul each, a matmul waiting for its own tile and a
// load for its FIFO slot (CoreGemm::fifo_matmuls).

#include "models/common/program.h"
#include "workloads/lowering/program_builder.h"
#include "workloads/mapping/tpu_gemm_mapping.h"

namespace systole::workloads {

models::Program lower_gemm(const models::TpuChipConfig& chip, const Layer& layer,
                           const GemmMapping& mapping);

/// Appends `count` independent instances of the mapped GEMM (groups of a convolution, heads of
/// attention), one after another through the same double buffers. A-tile loads move
/// bytes / a_reuse (implicit im2col fetches each input element about once); resident
/// activations move no A or C bytes.
void append_gemm(ProgramBuilder& b, const Layer& layer, const GemmMapping& mapping,
                 std::int64_t count = 1, const GemmTraffic& traffic = {});

}  // namespace systole::workloads
