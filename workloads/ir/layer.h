#pragma once
// The layer IR: what to compute, independent of any target. GEMM, conv2d, attention and the
// vector ops around them (softmax, layernorm, rmsnorm, GELU/SiLU, residual add), and LSTM
// cells.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/data_type.h"
#include "sim/core/error.h"

namespace systole::workloads {

enum class LayerOp {
  kGemm,
  kConv2d,
  kAttention,
  kSoftmax,
  kLayerNorm,
  kRmsNorm,
  kGelu,
  kSilu,
  kAdd,
  kMul,
  kLstm,  ///< one LSTM cell step: gate GEMM on the MXUs, the cell's nonlinearities on the
          ///< vector unit
  // Collectives over the devices of a multi-chip system (tpu_pod): CollectiveShape.
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll
};
const char* layer_op_name(LayerOp op);
/// True for the ops that run on the vector unit.
bool is_vector_op(LayerOp op);
/// True for all_reduce, reduce_scatter, all_gather and all_to_all.
bool is_collective_op(LayerOp op);

/// conv2d in NHWC with square-symmetric stride, padding and dilation; K filters of R x S x
/// C/groups.
struct ConvShape {
  std::int64_t n = 1, h = 0, w = 0, c = 0, k = 0, r = 0, s = 0;
  std::int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
  std::int64_t p() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }  ///< out H
  std::int64_t q() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }  ///< out W
};

/// Scaled-dot-product attention of `heads` query heads sharing `kv_heads` K/V heads (MHA when
/// equal, GQA when fewer, MQA when one). Decode is seq_q = new tokens against a KV cache of
/// seq_kv positions; causal masking aligns the queries with the last positions.
struct AttentionShape {
  std::int64_t batch = 1, heads = 0, kv_heads = 0, seq_q = 0, seq_kv = 0, head_dim = 0;
  bool causal = false;
  std::int64_t group() const { return heads / kv_heads; }  ///< query heads per K/V head
  /// Score-matrix entries actually computed per (batch, head): all, or the unmasked ones.
  std::uint64_t scores_per_head() const;
};

/// A vector op over rows x cols elements (softmax and norms reduce along each row).
struct VectorShape {
  std::int64_t rows = 0, cols = 0;
};

/// How a collective layer moves its data (models/ici/README.md): ring, bidirectional ring, or
/// the multi-dimensional torus algorithm; kDefault lets the network choose (ICI: torus).
enum class CollectiveAlgorithm : std::uint8_t { kDefault, kRing, kBidirRing, kTorus };

/// A collective layer: `bytes` is S, the whole array per device as nccl-tests defines it
/// (NVIDIA/nccl-tests doc/PERFORMANCE.md): the all-reduce buffer, the reduce-scatter input, the
/// all-gather output, the all-to-all send buffer. The group is every device, or the devices
/// along the named torus axes (one group per line of chips along them, all running at once).
struct CollectiveShape {
  std::uint64_t bytes = 0;
  std::array<bool, 3> axes{{true, true, true}};  ///< x, y, z
  bool all = true;                               ///< the group is every device
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kDefault;
};
const char* collective_algorithm_text(CollectiveAlgorithm a);

/// An elementwise layer fused into the epilogue of the GEMM before it: applied by the vector
/// unit to each output tile before the tile is stored (see fuse_epilogues, mapping/layer_plan.h).
struct Epilogue {
  std::string name;  ///< the fused layer's name
  LayerOp op = LayerOp::kGelu;
  int extra_inputs = 0;  ///< tensors it reads besides the GEMM's output (add, mul: 1)
};

struct Layer {
  std::string name;
  LayerOp op = LayerOp::kGemm;
  DataType dtype = DataType::kBf16;  ///< operand type; outputs in the same type
  std::int64_t repeat = 1;           ///< identical layers in a row (e.g. transformer blocks)
  /// lstm: time steps per stacked layer (repeat = stacked layers x steps, stacked layer by
  /// stacked layer: instances [0, steps) are the first, which reads the workload's x_t).
  std::int64_t steps = 1;
  Origin origin;  ///< where the layer was declared

  // gemm: C[batch][m x n] = A[batch][m x k] * B[k x n]; B (the weights) is shared by the batch,
  // so the batch folds into M.
  // lstm: one time step of a cell of hidden size n / 4 over input size k - n / 4 for m
  // sequences: gates[m x n] = [x_t, h_t-1][m x k] * W[k x n] (input, forget, cell and output
  // gates side by side), then c_t = sigmoid(f) c_t-1 + sigmoid(i) tanh(g) and
  // h_t = sigmoid(o) tanh(c_t) on the vector unit. `repeat` counts time steps (times stacked
  // layers): instance t + 1 reads h_t, so it waits for instance t (lowering/compile.h).
  std::int64_t batch = 1;
  std::int64_t m = 0, n = 0, k = 0;
  ConvShape conv;                  ///< conv2d
  AttentionShape attn;             ///< attention
  VectorShape vec;                 ///< vector ops
  CollectiveShape coll;            ///< collectives
  std::vector<Epilogue> epilogue;  ///< gemm: elementwise layers fused into its output tiles
  /// gemm: the epilogue is gated (GLU: SwiGLU, GeGLU; set by fuse_epilogues): stored column j
  /// is act(column 2j) x column 2j + 1, the gate and up weight columns interleaved as fused GLU
  /// kernels keep them, so an output tile holds whole pairs; the output is rows() x n / 2.
  bool glu = false;
  /// Tensor edges: the names of the layers whose outputs this layer reads (activations; its
  /// weights are its own), each declared before it; `input` (kWorkloadInput) is the workload's
  /// input. Empty: the output of the layer before it (the workload's input for the first), as
  /// a plain list of layers reads. Fusion and CMEM hand-offs follow these edges.
  std::vector<std::string> inputs;

  std::int64_t rows() const { return batch * m; }            ///< GEMM M after folding the batch
  std::int64_t out_cols() const { return glu ? n / 2 : n; }  ///< gemm: columns stored
  std::uint64_t macs() const;                    ///< multiply-accumulates (0 for vector ops)
  std::uint64_t elements() const;                ///< vector ops: elements processed; lstm: of h_t
  std::int64_t hidden() const { return n / 4; }  ///< lstm: hidden size
  std::string shape() const;  ///< for people: "8192x8192x8192", "1x224x224x3 k64 7x7/2"
};

/// The name of the workload's input tensor in Layer::inputs.
inline constexpr const char* kWorkloadInput = "input";
/// A producer index meaning the workload's input.
inline constexpr size_t kFromInput = static_cast<size_t>(-1);

/// Each layer's producers: the indices of the layers whose outputs it reads (kFromInput for the
/// workload's input), from its named inputs or the sequential default. Throws WorkloadError
/// for a name that is no earlier layer's.
std::vector<std::vector<size_t>> producers(const std::vector<Layer>& layers);
/// How many layers read each layer's output (from producers()).
std::vector<int> consumer_counts(const std::vector<std::vector<size_t>>& producers);

struct Workload {
  std::string name;
  std::string source;  ///< where the shapes come from
  std::string file;    ///< file it was read from, or "" when inline
  std::vector<Layer> layers;
};

/// Every field of every layer as text, one line per layer: what the workload asks to compute,
/// for fingerprints (--resume reruns a point whose workload changed). A field added to Layer
/// belongs here too.
std::string canonical_text(const Workload& w);

}  // namespace systole::workloads
