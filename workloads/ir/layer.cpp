#include "workloads/ir/layer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace systole::workloads {

const char* layer_op_name(LayerOp op) {
  switch (op) {
    case LayerOp::kGemm:
      return "gemm";
    case LayerOp::kConv2d:
      return "conv2d";
    case LayerOp::kAttention:
      return "attention";
    case LayerOp::kSoftmax:
      return "softmax";
    case LayerOp::kLayerNorm:
      return "layernorm";
    case LayerOp::kRmsNorm:
      return "rmsnorm";
    case LayerOp::kGelu:
      return "gelu";
    case LayerOp::kSilu:
      return "silu";
    case LayerOp::kAdd:
      return "add";
    case LayerOp::kMul:
      return "mul";
    case LayerOp::kLstm:
      return "lstm";
    case LayerOp::kAllReduce:
      return "all_reduce";
    case LayerOp::kReduceScatter:
      return "reduce_scatter";
    case LayerOp::kAllGather:
      return "all_gather";
    case LayerOp::kAllToAll:
      return "all_to_all";
  }
  return "?";
}

bool is_collective_op(LayerOp op) {
  return op == LayerOp::kAllReduce || op == LayerOp::kReduceScatter || op == LayerOp::kAllGather ||
         op == LayerOp::kAllToAll;
}

const char* collective_algorithm_text(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kBidirRing:
      return "bidir_ring";
    case CollectiveAlgorithm::kTorus:
      return "torus";
    default:
      return "default";
  }
}

bool is_vector_op(LayerOp op) {
  return op != LayerOp::kGemm && op != LayerOp::kConv2d && op != LayerOp::kAttention &&
         op != LayerOp::kLstm && !is_collective_op(op);
}

std::uint64_t AttentionShape::scores_per_head() const {
  const auto q = static_cast<std::uint64_t>(seq_q), kv = static_cast<std::uint64_t>(seq_kv);
  if (!causal) return q * kv;
  // Query i (0-based) sits at position kv - q + i and sees kv - q + i + 1 keys.
  return q * (kv - q) + q * (q + 1) / 2;
}

std::uint64_t Layer::macs() const {
  switch (op) {
    case LayerOp::kGemm:
    case LayerOp::kLstm:
      return static_cast<std::uint64_t>(rows()) * static_cast<std::uint64_t>(n) *
             static_cast<std::uint64_t>(k);
    case LayerOp::kConv2d: {
      const auto& c = conv;
      return static_cast<std::uint64_t>(c.n * c.p() * c.q()) * static_cast<std::uint64_t>(c.k) *
             static_cast<std::uint64_t>(c.r * c.s * (c.c / c.groups));
    }
    case LayerOp::kAttention:
      // QK^T and PV: each score costs head_dim MACs twice.
      return 2 * static_cast<std::uint64_t>(attn.batch * attn.heads) * attn.scores_per_head() *
             static_cast<std::uint64_t>(attn.head_dim);
    default:
      return 0;
  }
}

std::uint64_t Layer::elements() const {
  if (op == LayerOp::kLstm)
    return static_cast<std::uint64_t>(rows()) * static_cast<std::uint64_t>(hidden());
  return static_cast<std::uint64_t>(vec.rows) * static_cast<std::uint64_t>(vec.cols);
}

std::string Layer::shape() const {
  switch (op) {
    case LayerOp::kGemm:
      if (batch == 1) return fmt::format("{}x{}x{}", m, n, k);
      return fmt::format("{}x({}x{}x{})", batch, m, n, k);
    case LayerOp::kConv2d: {
      const auto& c = conv;
      std::string s = fmt::format("{}x{}x{}x{} k{} {}x{}", c.n, c.h, c.w, c.c, c.k, c.r, c.s);
      if (c.stride != 1) s += fmt::format("/{}", c.stride);
      if (c.groups != 1) s += fmt::format(" g{}", c.groups);
      return s;
    }
    case LayerOp::kAttention: {
      const auto& a = attn;
      return fmt::format("b{} h{}/{} q{} kv{} d{}{}", a.batch, a.heads, a.kv_heads, a.seq_q,
                         a.seq_kv, a.head_dim, a.causal ? " causal" : "");
    }
    case LayerOp::kLstm:  // sequences x input -> hidden
      return fmt::format("{}x{}->{}", m, k - hidden(), hidden());
    case LayerOp::kAllReduce:
    case LayerOp::kReduceScatter:
    case LayerOp::kAllGather:
    case LayerOp::kAllToAll: {
      std::string g;
      for (int a = 0; a < 3; ++a)
        if (coll.axes[static_cast<size_t>(a)]) g += "xyz"[a];
      return fmt::format("{} B over {}", coll.bytes, coll.all ? "all" : g);
    }
    default:
      return fmt::format("{}x{}", vec.rows, vec.cols);
  }
}

std::vector<std::vector<size_t>> producers(const std::vector<Layer>& layers) {
  std::vector<std::vector<size_t>> out(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    if (l.inputs.empty()) {
      out[i].push_back(i == 0 ? kFromInput : i - 1);
      continue;
    }
    for (const auto& name : l.inputs) {
      size_t from = kFromInput;
      if (name != kWorkloadInput) {
        for (size_t j = i; j-- > 0 && from == kFromInput;)  // the latest earlier layer so named
          if (layers[j].name == name) from = j;
        if (from == kFromInput)
          throw WorkloadError(fmt::format(
              "layer '{}' reads '{}', which is no layer before it (inputs name earlier layers, "
              "or '{}' for the workload's input)",
              l.name, name, kWorkloadInput));
      }
      if (std::find(out[i].begin(), out[i].end(), from) == out[i].end()) out[i].push_back(from);
    }
  }
  return out;
}

std::vector<int> consumer_counts(const std::vector<std::vector<size_t>>& producers) {
  std::vector<int> n(producers.size(), 0);
  for (const auto& p : producers)
    for (const size_t from : p)
      if (from != kFromInput) ++n[from];
  return n;
}

std::string canonical_text(const Workload& w) {
  std::string out = fmt::format("workload {} | {}\n", w.name, w.source);
  for (const Layer& l : w.layers) {
    const ConvShape& c = l.conv;
    const AttentionShape& a = l.attn;
    out += fmt::format(
        "{} op={} dtype={} repeat={} batch={} mnk={},{},{} conv={},{},{},{},{},{},{},{},{},{},{} "
        "attn={},{},{},{},{},{},{} vec={},{} glu={} inputs={}",
        l.name, layer_op_name(l.op), dtype_name(l.dtype), l.repeat, l.batch, l.m, l.n, l.k, c.n,
        c.h, c.w, c.c, c.k, c.r, c.s, c.stride, c.pad, c.dilation, c.groups, a.batch, a.heads,
        a.kv_heads, a.seq_q, a.seq_kv, a.head_dim, a.causal, l.vec.rows, l.vec.cols, l.glu,
        fmt::join(l.inputs, ","));
    if (l.op == LayerOp::kLstm) out += fmt::format(" steps={}", l.steps);
    for (const Epilogue& e : l.epilogue)
      out += fmt::format(" +{}:{}:{}", e.name, layer_op_name(e.op), e.extra_inputs);
    out += "\n";
  }
  return out;
}

}  // namespace systole::workloads
