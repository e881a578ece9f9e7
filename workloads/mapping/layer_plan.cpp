#include "workloads/mapping/layer_plan.h"

#include <algorithm>

namespace systole::workloads {

// Lane operations per element: the chip's vector.ops (models/vector/vector_config.cpp, where
// each is stated as an assumption); an add or a product is one.
double vector_ops_per_element(LayerOp op, const models::VectorOpCosts& c) {
  switch (op) {
    case LayerOp::kSoftmax:
      return c.softmax;
    case LayerOp::kLayerNorm:
      return c.layernorm;
    case LayerOp::kRmsNorm:
      return c.rmsnorm;
    case LayerOp::kGelu:
      return c.gelu;
    case LayerOp::kSilu:
      return c.silu;
    case LayerOp::kAdd:
    case LayerOp::kMul:
      return 1;
    case LayerOp::kLstm:
      return c.lstm_cell;
    default:
      return 0;
  }
}

namespace {

Layer gemm_of(const Layer& from, std::int64_t m, std::int64_t n, std::int64_t k,
              const std::string& suffix) {
  Layer g;
  g.name = from.name + suffix;
  g.op = LayerOp::kGemm;
  g.dtype = from.dtype;
  g.origin = from.origin;
  g.m = m;
  g.n = n;
  g.k = k;
  return g;
}

Step gemm_step(const std::string& name, Layer g, std::int64_t count, double a_reuse = 1) {
  Step s;
  s.kind = Step::Kind::kGemm;
  s.name = name;
  s.gemm = {std::move(g), count, a_reuse};
  return s;
}

Step vector_step(const std::string& name, LayerOp op, std::int64_t rows, std::int64_t cols,
                 const models::VectorOpCosts& costs) {
  Step s;
  s.kind = Step::Kind::kVector;
  s.name = name;
  s.vec.op = op;
  s.vec.rows = rows;
  s.vec.cols = cols;
  s.vec.inputs = (op == LayerOp::kAdd || op == LayerOp::kMul) ? 2 : 1;
  s.vec.ops_per_element = vector_ops_per_element(op, costs);
  return s;
}

}  // namespace

bool is_depthwise(const ConvShape& c) { return c.groups > 1 && c.groups == c.c; }

bool is_epilogue_op(LayerOp op) {
  return op == LayerOp::kGelu || op == LayerOp::kSilu || op == LayerOp::kAdd || op == LayerOp::kMul;
}

namespace {

/// Names each fused layer's inputs after fusion: the layers it read, by the names they have in
/// `out` (empty where that is the layer before it, the default).
void rename_inputs(std::vector<Layer>& out, const std::vector<std::vector<size_t>>& from,
                   const std::vector<size_t>& first, const std::vector<size_t>& into) {
  for (size_t o = 0; o < out.size(); ++o) {
    std::vector<std::string> names;
    bool sequential = true;
    for (const size_t p : from[first[o]]) {
      const bool is_input = p == kFromInput;
      names.push_back(is_input ? kWorkloadInput : out[into[p]].name);
      sequential = sequential && (is_input ? o == 0 : into[p] + 1 == o);
    }
    out[o].inputs = sequential && names.size() == 1 ? std::vector<std::string>{} : names;
  }
}

}  // namespace

std::vector<Layer> fuse_epilogues(const std::vector<Layer>& layers) {
  const auto from = producers(layers);
  const auto readers = consumer_counts(from);
  const auto reads = [&](size_t l, size_t p) {
    return std::find(from[l].begin(), from[l].end(), p) != from[l].end();
  };
  // l reads the output `g` stores now (that of layer `src`) and at most the other tensors its op
  // takes (add, mul: one), and nothing else reads that output.
  const auto sole_reader = [&](size_t l, size_t src) {
    const size_t takes = layers[l].op == LayerOp::kAdd || layers[l].op == LayerOp::kMul ? 2 : 1;
    return reads(l, src) && readers[src] == 1 && from[l].size() <= takes;
  };
  const auto like = [](const Layer& l, const Layer& g) {  // an elementwise layer g can absorb
    return is_epilogue_op(l.op) && l.repeat == g.repeat && l.dtype == g.dtype;
  };
  std::vector<Layer> out;
  std::vector<size_t> first;                // per fused layer: the input layer it began as
  std::vector<size_t> into(layers.size());  // per input layer: the fused layer holding it
  size_t src = 0;                           // the input layer whose output out.back() stores
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    Layer* g = out.empty() ? nullptr : &out.back();
    const bool absorbable = g && g->op == LayerOp::kGemm && like(l, *g);
    const auto stored = g ? static_cast<std::uint64_t>(g->rows() * g->out_cols()) : 0;
    if (absorbable && l.elements() == stored &&
        sole_reader(i, src)) {  // over the whole output (and one more tensor)
      g->epilogue.push_back(
          {l.name, l.op, (l.op == LayerOp::kAdd || l.op == LayerOp::kMul) ? 1 : 0});
      g->name += "+" + l.name;
      into[i] = out.size() - 1;
      src = i;
      continue;
    }
    // A gated linear unit: an activation over half of a fresh GEMM's output, then the product
    // of the two halves (SwiGLU, GeGLU): the activation reads the output, the product reads the
    // activation (and may name the output too); nothing else reads either.
    const Layer* mul = i + 1 < layers.size() ? &layers[i + 1] : nullptr;
    const auto glu_edges = [&] {
      const bool both = reads(i + 1, src);
      return from[i].size() == 1 && reads(i, src) && readers[src] == (both ? 2 : 1) &&
             reads(i + 1, i) && readers[i] == 1 && from[i + 1].size() == (both ? 2u : 1u);
    };
    if (absorbable && g->epilogue.empty() && !g->glu && g->n % 2 == 0 &&
        (l.op == LayerOp::kGelu || l.op == LayerOp::kSilu) && 2 * l.elements() == stored && mul &&
        mul->op == LayerOp::kMul && like(*mul, *g) && mul->elements() == l.elements() &&
        glu_edges()) {
      g->glu = true;
      g->epilogue.push_back({l.name, l.op, 0});
      g->epilogue.push_back({mul->name, LayerOp::kMul, 0});  // its operands: the two halves
      g->name += "+" + l.name + "+" + mul->name;
      into[i] = into[i + 1] = out.size() - 1;
      src = ++i;
      continue;
    }
    out.push_back(l);
    first.push_back(i);
    into[i] = out.size() - 1;
    src = i;
  }
  rename_inputs(out, from, first, into);
  return out;
}

std::vector<Step> plan_layer(const Layer& l, AttentionImpl attention,
                             const models::VectorOpCosts& costs) {
  switch (l.op) {
    case LayerOp::kGemm:
      return {gemm_step("gemm", l, 1)};
    case LayerOp::kConv2d: {
      const ConvShape& c = l.conv;
      if (is_depthwise(c)) {
        Step s = vector_step("depthwise", LayerOp::kConv2d, c.n * c.p() * c.q(), c.k, costs);
        s.vec.inputs = 1;
        s.vec.ops_per_element = static_cast<double>(c.r * c.s);  // one multiply-add per tap
        s.vec.input_ratio =
            static_cast<double>(c.h * c.w * c.c) / static_cast<double>(c.p() * c.q() * c.k);
        return {s};
      }
      const std::int64_t m = c.n * c.p() * c.q(), n = c.k / c.groups,
                         k = (c.c / c.groups) * c.r * c.s;
      // im2col rows x cols over the input elements a group reads: how often explicit im2col
      // would re-read each input element; implicit im2col fetches it about once.
      const double expanded = static_cast<double>(m) * static_cast<double>(k);
      const double input = static_cast<double>(c.n * c.h * c.w * (c.c / c.groups));
      return {gemm_step(c.groups > 1 ? "group" : "conv", gemm_of(l, m, n, k, ""), c.groups,
                        std::max(1.0, expanded / input))};
    }
    case LayerOp::kAttention: {
      const AttentionShape& a = l.attn;
      if (attention == AttentionImpl::kFused) {
        Step s;
        s.kind = Step::Kind::kFlash;
        s.name = "flash";
        s.flash = {a, l.dtype};
        return {s};
      }
      const std::int64_t count = a.batch * a.kv_heads, rows = a.group() * a.seq_q;
      return {
          gemm_step("qk", gemm_of(l, rows, a.seq_kv, a.head_dim, ".qk"), count),
          vector_step("softmax", LayerOp::kSoftmax, a.batch * a.heads * a.seq_q, a.seq_kv, costs),
          gemm_step("pv", gemm_of(l, rows, a.head_dim, a.seq_kv, ".pv"), count)};
    }
    case LayerOp::kLstm: {
      // The gate GEMM, then the cell on the vector unit: per element of h_t it reads the four
      // gate pre-activations and c_t-1.
      Step cell = vector_step("cell", LayerOp::kLstm, l.m, l.hidden(), costs);
      cell.vec.input_ratio = 5;
      return {gemm_step("gates", gemm_of(l, l.m, l.n, l.k, ".gates"), 1), cell};
    }
    default:
      return {vector_step(layer_op_name(l.op), l.op, l.vec.rows, l.vec.cols, costs)};
  }
}

}  // namespace systole::workloads
