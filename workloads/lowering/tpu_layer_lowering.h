#pragma once
// Lowers any layer to one chip program (its steps in order, see mapping/layer_plan.h) and
// states its analytical bounds: compute (MXU), vector-unit and HBM rooflines.

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/program.h"
#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "workloads/mapping/layer_plan.h"

namespace systole::workloads {

struct LayerBounds {
  std::uint64_t macs = 0;              ///< useful multiply-accumulates
  std::uint64_t lane_ops = 0;          ///< vector-unit lane operations (vector ops, softmax)
  std::uint64_t compulsory_bytes = 0;  ///< HBM: inputs read once, outputs written once
  double compute_cycles = 0;           ///< MACs / peak MACs per cycle
  double vector_cycles = 0;            ///< lane ops / (lanes x cores)
  double hbm_cycles = 0;               ///< compulsory bytes at peak HBM bandwidth
  double roofline_cycles = 0;          ///< the largest of the three
  double intensity = 0;                ///< FLOPs (2 per MAC) per compulsory byte
  std::string bound;                   ///< "compute", "vector" or "hbm"
};

struct LoweredLayer {
  models::Program program;
  std::string tile;                 ///< the tiling, for people ("512x1024x2048", "Br128 Bc512")
  std::uint64_t planned_bytes = 0;  ///< HBM bytes the program moves
  LayerBounds bounds;
};

/// Activations handed from one layer to the next through CMEM instead of HBM: the producer
/// stores its output to CMEM (row-major from address 0), the consumer GEMM reads its A operand
/// from there on every pass.
struct Handoff {
  bool input_cmem = false;   ///< a GEMM whose A operand the layer before left in CMEM
  bool output_cmem = false;  ///< a layer whose output the GEMM after it reads from CMEM
};

/// Which layers hand their output to the next one through CMEM (system.mapping.cmem_handoff):
/// a vector layer or a fused attention directly followed by a GEMM (op gemm) that reads its
/// output and nothing else (Layer::inputs), no other layer reading it, whose A operand has
/// exactly the producer's output elements, both with repeat 1 and the same dtype, when the
/// tensor fits CMEM.
std::vector<Handoff> plan_handoffs(const models::TpuChipConfig& chip,
                                   const std::vector<Layer>& layers, const MappingOptions& opt);

/// Throws WorkloadError naming the layer and the sizes when a step fits nowhere.
LoweredLayer lower_layer(const models::TpuChipConfig& chip, const Layer& l,
                         const MappingOptions& opt, const Handoff& handoff = {});

/// `resident`: the layer's activations stay on chip (only its weights count as HBM traffic);
/// `handoff`: an input or output that crosses CMEM, not HBM.
LayerBounds layer_bounds(const models::TpuChipConfig& chip, const Layer& l, AttentionImpl impl,
                         bool resident = false, const Handoff& handoff = {});

}  // namespace systole::workloads
