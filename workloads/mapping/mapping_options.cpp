#include "workloads/mapping/mapping_options.h"

#include <string>

namespace systole::workloads {

const char* attention_impl_name(AttentionImpl a) {
  return a == AttentionImpl::kFused ? "fused" : "unfused";
}

const config::SchemaOf<MappingOptions>& MappingOptions::schema() {
  static const config::SchemaOf<MappingOptions> s = [] {
    config::SchemaOf<MappingOptions> b("mapping", "how layers are mapped onto the chip");
    b.choice<AttentionImpl>(
         "attention", &MappingOptions::attention,
         {{"fused", AttentionImpl::kFused}, {"unfused", AttentionImpl::kUnfused}},
         std::string("fused"),
         "fused: FlashAttention-style tiles in VMEM; unfused: QK^T, softmax and "
         "PV as separate steps with the score matrix in HBM")
        .choice<bool>("activations", &MappingOptions::activations_on_chip,
                      {{"hbm", false}, {"on_chip", true}}, std::string("hbm"),
                      "where GEMM/conv activations live between layers: hbm, or on chip "
                      "in half of VMEM when they fit (TPU v1's Unified Buffer)")
        .choice<bool>("fusion", &MappingOptions::fuse_epilogues,
                      {{"epilogue", true}, {"none", false}}, std::string("epilogue"),
                      "epilogue: an elementwise layer (gelu, silu, add, mul) right after a GEMM "
                      "over its output runs on each output tile before it is stored, as one "
                      "layer 'gemm+op' (gelu or silu over half of it, then mul: a gated unit "
                      "such as SwiGLU, storing the gated half); none: every layer reads and "
                      "writes HBM")
        .boolean("cmem_handoff", &MappingOptions::cmem_handoff, true,
                 "a vector layer's or fused attention's output that the next GEMM reads as its "
                 "A operand stays in CMEM (when it fits) instead of crossing HBM twice")
        .boolean("layer_overlap", &MappingOptions::layer_overlap, true,
                 "true: one op graph for the whole workload, layers ordered only by their data "
                 "and VMEM buffers, so the next layer's weights stream in while the current one "
                 "computes; false: each layer starts when the one before it has finished")
        .choice<bool>("weight_layout", &MappingOptions::weights_tiled,
                      {{"row_major", false}, {"tiled", true}}, std::string("row_major"),
                      "where weights sit in memory: row_major matrices, or tiled: each "
                      "array-sized tile the weight FIFO streams contiguous, as a host lays out "
                      "read-only weights for it (needs mxu.weight_fifo > 0)");
    return b;
  }();
  return s;
}

}  // namespace systole::workloads
