#include "workloads/lowering/host_io.h"

#include <algorithm>

namespace systole::workloads {

namespace {
std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }
}  // namespace

std::uint64_t external_input_bytes(const Layer& l) {
  const std::uint64_t eb = dtype_bytes(l.dtype);
  switch (l.op) {
    case LayerOp::kGemm:
      return u(l.rows() * l.k) * eb;
    case LayerOp::kConv2d:
      return u(l.conv.n * l.conv.h * l.conv.w * l.conv.c) * eb;
    case LayerOp::kLstm:  // x_t: the part of [x_t, h_t-1] that is not the recurrent state
      return u(l.rows() * (l.k - l.hidden())) * eb;
    case LayerOp::kAttention: {
      const auto& a = l.attn;
      return (u(a.batch * a.heads * a.seq_q * a.head_dim) +
              2 * u(a.batch * a.kv_heads * a.seq_kv * a.head_dim)) *
             eb;
    }
    default:
      return is_collective_op(l.op) ? 0 : l.elements() * eb;
  }
}

std::uint64_t external_output_bytes(const Layer& l) {
  const std::uint64_t eb = dtype_bytes(l.dtype);
  switch (l.op) {
    case LayerOp::kGemm:
      return u(l.rows() * l.out_cols()) * eb;
    case LayerOp::kConv2d:
      return u(l.conv.n * l.conv.p() * l.conv.q() * l.conv.k) * eb;
    case LayerOp::kAttention:
      return u(l.attn.batch * l.attn.heads * l.attn.seq_q * l.attn.head_dim) * eb;
    default:  // lstm: h_t; vector ops: their elements
      return is_collective_op(l.op) ? 0 : l.elements() * eb;
  }
}

std::vector<std::vector<HostTransfers>> plan_host_transfers(const std::vector<Layer>& layers) {
  const auto from = producers(layers);
  const auto readers = consumer_counts(from);
  std::vector<std::vector<HostTransfers>> out(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    out[i].resize(static_cast<size_t>(std::max<std::int64_t>(0, l.repeat)));
    if (is_collective_op(l.op) || out[i].empty()) continue;
    // An LSTM's first stacked layer reads x_t at each of its steps; its last one's h_t of every
    // step are the output. Other layers read the input once and write their last output.
    const std::int64_t steps =
        l.op == LayerOp::kLstm ? std::clamp<std::int64_t>(l.steps, 1, l.repeat) : 1;
    if (std::find(from[i].begin(), from[i].end(), kFromInput) != from[i].end())
      for (std::int64_t t = 0; t < steps; ++t) {
        out[i][static_cast<size_t>(t)].input_step = t;
        out[i][static_cast<size_t>(t)].input_bytes = external_input_bytes(l);
      }
    if (readers[i] == 0) out[i].back().output_bytes = external_output_bytes(l) * u(steps);
  }
  return out;
}

}  // namespace systole::workloads
