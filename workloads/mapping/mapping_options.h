#pragma once
// The mapping choices of an experiment (`system.mapping`): how the compiler maps layers onto a
// target. Declared once, with their schema; the compiler reads them, the systems store them.

#include "sim/config/schema.h"

namespace systole::workloads {

enum class AttentionImpl { kUnfused, kFused };
const char* attention_impl_name(AttentionImpl a);

/// Mapping choices an architect compares: the `system.mapping` section of an experiment, one
/// schema for every system that compiles layers (the only place their defaults are written).
struct MappingOptions {
  AttentionImpl attention = AttentionImpl::kFused;
  /// GEMM/conv activations stay in on-chip memory between layers when they fit in half of
  /// VMEM (TPU v1's Unified Buffer); otherwise every layer reads and writes them in HBM.
  bool activations_on_chip = false;
  /// Elementwise layers right after a GEMM are fused into its epilogue (fuse_epilogues).
  bool fuse_epilogues = true;
  /// A layer's output that the next GEMM reads as A stays in CMEM (plan_handoffs).
  bool cmem_handoff = true;
  /// Layers overlap as far as their data and VMEM buffers allow (the next layer's weights
  /// stream in while the current one computes); false: each layer starts when the one before
  /// it has finished (lowering/compile.h).
  bool layer_overlap = true;
  /// Weights streamed through a weight FIFO (MxuConfig::weight_fifo) sit in memory as its
  /// array-sized tiles, each contiguous; false: row-major matrices.
  bool weights_tiled = false;
  static const config::SchemaOf<MappingOptions>& schema();
};

}  // namespace systole::workloads
