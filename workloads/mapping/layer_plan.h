#pragma once
// How a layer becomes work a TPU-class chip executes: a sequence of steps, each a GEMM job for
// the MXUs (tiled through VMEM by map_gemm), a vector job for the vector units, or a fused
// attention job. Target-independent shapes only; timing happens in the system.
//
//   gemm       one GEMM job
//   conv2d     depthwise (groups = channels): a vector job, R*S multiply-adds per output on
//              the vector unit (an MXU would use one column in 128), as TPU compilers do;
//              otherwise implicit im2col: one GEMM job per group, M = N*P*Q output pixels, N =
//              K/groups filters, K = C/groups*R*S; the im2col matrix is never written — each input
//              element is fetched about once per pass instead of R*S/stride^2 times
//   attention  unfused: S = Q K^T (GEMM per batch x kv-head, the query heads of a group
//              stacked into M), softmax over S in HBM, O = P V (GEMM); fused (FlashAttention):
//              one job that keeps the query tile and the running softmax in VMEM
//   lstm       one time step: the gate GEMM (m x 4 hidden x (input + hidden)), then the cell
//              (sigmoid x 3, tanh x 2, products, sum) as a vector job over m x hidden
//   others     one vector job

#include <cstdint>
#include <string>
#include <vector>

#include "models/vector/vector_config.h"
#include "workloads/ir/layer.h"
#include "workloads/mapping/mapping_options.h"

namespace systole::workloads {

/// An elementwise op (GELU, SiLU, add, mul) a GEMM epilogue can apply.
bool is_epilogue_op(LayerOp op);

/// Output fusion, as TPU and GPU compilers do it: an elementwise layer right after a GEMM (or
/// after one fused into it) that reads that GEMM's output and nothing else, when no other layer
/// reads the output (Layer::inputs: the tensor edges), over exactly the GEMM's output elements,
/// with the same dtype and repeat count, becomes part of the GEMM's epilogue: the layers become
/// one, named "gemm+op", whose output tiles pass through the vector unit before they are stored.
/// A GELU or SiLU over half of a GEMM's output followed by a product of that size that reads
/// it is a gated linear unit (SwiGLU, GeGLU): both fuse and the GEMM stores only the gated half
/// (Layer::glu). Later layers' inputs are renamed to the fused layers.
std::vector<Layer> fuse_epilogues(const std::vector<Layer>& layers);

struct GemmJob {
  Layer gemm;              ///< GEMM-shaped (op gemm, batch 1): what map_gemm tiles (with its
                           ///< epilogue, if any)
  std::int64_t count = 1;  ///< independent instances with their own operands, run back to back
  double a_reuse = 1;      ///< HBM bytes of A tiles are divided by this (implicit im2col)
};

struct VectorJob {
  LayerOp op = LayerOp::kAdd;
  std::int64_t rows = 0, cols = 0;
  int inputs = 1;              ///< tensors read (2 for add/mul)
  double ops_per_element = 1;  ///< vector-lane operations per element (see layer_plan.cpp)
  double input_ratio = 1;      ///< elements read per input tensor / elements written
  std::uint64_t elements() const {
    return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  }
};

struct FlashJob {
  AttentionShape attn;
  DataType dtype = DataType::kBf16;
};

struct Step {
  enum class Kind { kGemm, kVector, kFlash } kind = Kind::kGemm;
  std::string name;  ///< "qk", "softmax", "pv", "group", ...
  GemmJob gemm;
  VectorJob vec;
  FlashJob flash;
};

/// A grouped convolution with one input channel per group (depthwise, any channel multiplier).
bool is_depthwise(const ConvShape& c);

/// The steps of one instance of `l` (its repeat count is applied by the caller).
std::vector<Step> plan_layer(const Layer& l, AttentionImpl attention,
                             const models::VectorOpCosts& costs);

/// Vector-lane operations per element of a vector op, from the chip's `vector.ops`.
double vector_ops_per_element(LayerOp op, const models::VectorOpCosts& costs);

}  // namespace systole::workloads
