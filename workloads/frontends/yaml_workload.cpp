#include "workloads/frontends/yaml_workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/core/text.h"
#include "workloads/frontends/expr.h"
#include "workloads/frontends/scalesim_topology.h"

namespace systole::workloads {

using config::Node;
using config::SchemaOf;

namespace {

constexpr std::int64_t kMaxDim = 1ll
                                 << 24;  // 16M: far beyond any real layer, keeps MACs in 64 bits
const std::vector<std::pair<std::string, DataType>> kDtypes = {{"bf16", DataType::kBf16},
                                                               {"int8", DataType::kInt8},
                                                               {"fp8_e4m3", DataType::kFp8E4M3},
                                                               {"fp8_e5m2", DataType::kFp8E5M2}};

// Fields every op has.
template <class T>
void common_fields(SchemaOf<T>& b) {
  b.text("name", &T::name, std::string(""), "layer name (defaults to op and index)")
      .text("op", &T::op, std::string("gemm"), "layer operation")
      .integer("repeat", &T::repeat, 1, 1, 1 << 20, "identical layers in a row")
      .template choice<DataType>("dtype", &T::dtype, kDtypes, std::string("bf16"),
                                 "operand type")
      .ignore("inputs");  // a list of names: read_inputs
}

struct Base {
  std::string name, op;
  std::int64_t repeat = 1;
  DataType dtype = DataType::kBf16;
};

struct GemmSpec : Base {
  std::int64_t batch = 0, m = 0, n = 0, k = 0;
};
struct ConvSpec : Base {
  std::int64_t n = 0, h = 0, w = 0, ch = 0, k = 0, r = 0, s = 0, stride = 0, pad = 0, dil = 0,
               groups = 0;
};
struct AttnSpec : Base {
  std::int64_t batch = 0, heads = 0, kv_heads = 0, seq_q = 0, seq_kv = 0, head_dim = 0;
  bool causal = false;
};
struct VecSpec : Base {
  std::int64_t rows = 0, cols = 0;
};
struct LstmSpec : Base {
  std::int64_t batch = 0, input = 0, hidden = 0, steps = 0;
};
struct CollSpec : Base {
  std::int64_t bytes = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kDefault;
};

constexpr std::int64_t kMaxCollectiveBytes = 1ll << 50;  // 1 PiB: far beyond any device's memory

const SchemaOf<GemmSpec>& gemm_schema() {
  static const SchemaOf<GemmSpec> s = [] {
    SchemaOf<GemmSpec> b("gemm",
                         "C[m x n] = A[m x k] * B[k x n], B (weights) shared over the batch");
    common_fields(b);
    b.integer("batch", &GemmSpec::batch, 1, 1, kMaxDim, "batch (folds into m)")
        .integer("m", &GemmSpec::m, std::nullopt, 1, kMaxDim, "rows of A and C")
        .integer("n", &GemmSpec::n, std::nullopt, 1, kMaxDim, "columns of B and C")
        .integer("k", &GemmSpec::k, std::nullopt, 1, kMaxDim, "reduction length");
    return b;
  }();
  return s;
}

const SchemaOf<ConvSpec>& conv_schema() {
  static const SchemaOf<ConvSpec> s = [] {
    SchemaOf<ConvSpec> b("conv2d", "2-D convolution, NHWC, symmetric stride/padding/dilation");
    common_fields(b);
    b.integer("n", &ConvSpec::n, 1, 1, kMaxDim, "batch")
        .integer("h", &ConvSpec::h, std::nullopt, 1, kMaxDim, "input height")
        .integer("w", &ConvSpec::w, std::nullopt, 1, kMaxDim, "input width")
        .integer("c", &ConvSpec::ch, std::nullopt, 1, kMaxDim, "input channels")
        .integer("k", &ConvSpec::k, std::nullopt, 1, kMaxDim, "output channels (filters)")
        .integer("r", &ConvSpec::r, std::nullopt, 1, 4096, "filter height")
        .integer("s", &ConvSpec::s, std::nullopt, 1, 4096, "filter width")
        .integer("stride", &ConvSpec::stride, 1, 1, 4096, "stride (both dimensions)")
        .integer("pad", &ConvSpec::pad, 0, 0, 4096, "zero padding on each side")
        .integer("dilation", &ConvSpec::dil, 1, 1, 4096, "filter dilation")
        .integer("groups", &ConvSpec::groups, 1, 1, kMaxDim, "groups (c for depthwise)");
    return b;
  }();
  return s;
}

const SchemaOf<AttnSpec>& attn_schema() {
  static const SchemaOf<AttnSpec> s = [] {
    SchemaOf<AttnSpec> b("attention", "softmax(Q K^T / sqrt(d)) V over heads sharing K/V heads");
    common_fields(b);
    b.integer("batch", &AttnSpec::batch, 1, 1, kMaxDim, "sequences")
        .integer("heads", &AttnSpec::heads, std::nullopt, 1, 65536, "query heads")
        .integer("kv_heads", &AttnSpec::kv_heads, 0, 0, 65536,
                 "K/V heads (0 = heads: multi-head; 1: multi-query; else grouped-query)")
        .integer("seq_q", &AttnSpec::seq_q, std::nullopt, 1, kMaxDim,
                 "query positions (1 for decode)")
        .integer("seq_kv", &AttnSpec::seq_kv, 0, 0, kMaxDim,
                 "key/value positions incl. the KV cache (0 = seq_q)")
        .integer("head_dim", &AttnSpec::head_dim, std::nullopt, 1, 65536, "dimension per head")
        .boolean("causal", &AttnSpec::causal, false, "mask future positions");
    return b;
  }();
  return s;
}

const SchemaOf<LstmSpec>& lstm_schema() {
  static const SchemaOf<LstmSpec> s = [] {
    SchemaOf<LstmSpec> b("lstm",
                         "LSTM cell over time steps: per step the gate GEMM [x_t, h_t-1] * W "
                         "(4 x hidden columns) on the MXUs, then sigmoid x 3, tanh x 2 and the "
                         "cell's products and sum on the vector unit; step t + 1 waits for h_t");
    common_fields(b);
    b.integer("batch", &LstmSpec::batch, 1, 1, kMaxDim, "sequences run together")
        .integer("input", &LstmSpec::input, std::nullopt, 1, kMaxDim, "input size (x_t)")
        .integer("hidden", &LstmSpec::hidden, std::nullopt, 1, kMaxDim / 4,
                 "hidden size (h_t, c_t)")
        .integer("steps", &LstmSpec::steps, 1, 1, 1 << 20,
                 "time steps; each is one instance that waits for the one before");
    return b;
  }();
  return s;
}

const SchemaOf<CollSpec>& coll_schema(LayerOp op) {
  auto make = [](const char* name, const char* doc) {
    SchemaOf<CollSpec> b(name, doc);
    common_fields(b);
    b.integer("bytes", &CollSpec::bytes, std::nullopt, 0, kMaxCollectiveBytes,
              "S per device as nccl-tests defines it (NVIDIA/nccl-tests doc/PERFORMANCE.md): "
              "an expression of params, or a size such as 16MiB",
              "B")
        .choice<CollectiveAlgorithm>("algorithm", &CollSpec::algorithm,
                                     {{"default", CollectiveAlgorithm::kDefault},
                                      {"ring", CollectiveAlgorithm::kRing},
                                      {"bidir_ring", CollectiveAlgorithm::kBidirRing},
                                      {"torus", CollectiveAlgorithm::kTorus}},
                                     std::string("default"),
                                     "ring | bidir_ring | torus (default: the network's choice)")
        .ignore("group");  // all, or a list of torus axes: read_group
    return b;
  };
  static const SchemaOf<CollSpec> ar =
      make("all_reduce", "all-reduce of S bytes over the group (reduce-scatter + all-gather)");
  static const SchemaOf<CollSpec> rs =
      make("reduce_scatter", "reduce-scatter: S bytes in per device, S / p out");
  static const SchemaOf<CollSpec> ag =
      make("all_gather", "all-gather: S / p bytes in per device, S out");
  static const SchemaOf<CollSpec> a2a =
      make("all_to_all", "all-to-all: each device sends S / p bytes to every other");
  switch (op) {
    case LayerOp::kAllReduce:
      return ar;
    case LayerOp::kReduceScatter:
      return rs;
    case LayerOp::kAllGather:
      return ag;
    default:
      return a2a;
  }
}

// `group:` of a collective layer: `all` (the default) or a list of torus axes ([x], [y, z]).
void read_group(const Node& n, const std::string& path, CollectiveShape& c) {
  const Node* g = n.find("group");
  if (!g) return;
  const std::string gpath = path + ".group";
  if (g->is_scalar() && config::to_string(*g, gpath) == "all") return;
  std::vector<Node> items = g->is_seq() ? g->items() : std::vector<Node>{*g};
  if (items.empty())
    throw ConfigError(g->origin(), gpath, "expected 'all' or a list of torus axes (x, y, z)");
  c.all = false;
  c.axes = {false, false, false};
  const std::vector<std::string> axes = {"x", "y", "z"};
  for (size_t j = 0; j < items.size(); ++j) {
    const std::string at = g->is_seq() ? fmt::format("{}[{}]", gpath, j) : gpath;
    const std::string a = config::to_string(items[j], at);
    const auto it = std::find(axes.begin(), axes.end(), a);
    if (it == axes.end())
      throw ConfigError(items[j].origin(), at,
                        fmt::format("unknown group axis '{}'{}; a group is 'all' or a list of "
                                    "torus axes: x, y, z",
                                    a, did_you_mean(a, axes)));
    auto& flag = c.axes[static_cast<size_t>(it - axes.begin())];
    if (flag) throw ConfigError(items[j].origin(), at, fmt::format("axis '{}' named twice", a));
    flag = true;
  }
}

// A collective's `bytes:` given as a size with a unit ("34MB", "16MiB") becomes an integer.
Node with_size(const Node& n, const std::string& path) {
  Node out = n;
  for (auto& e : out.entries()) {
    if (e.key != "bytes" || !e.value.is_scalar()) continue;
    const std::string t = e.value.text();
    if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0])) || t.back() != 'B') continue;
    const double v = config::to_quantity(e.value, path + ".bytes", Dimension::kBytes, 0,
                                         static_cast<double>(kMaxCollectiveBytes));
    e.value = Node::scalar(std::to_string(static_cast<std::int64_t>(v)), e.value.origin());
  }
  return out;
}

const SchemaOf<VecSpec>& vec_schema(LayerOp op) {
  auto make = [](const char* name, const char* doc) {
    SchemaOf<VecSpec> b(name, doc);
    common_fields(b);
    b.integer("rows", &VecSpec::rows, std::nullopt, 1, 1ll << 40, "rows (tokens, pixels)")
        .integer("cols", &VecSpec::cols, std::nullopt, 1, kMaxDim,
                 "elements per row (hidden size)");
    return b;
  };
  static const SchemaOf<VecSpec> softmax = make("softmax", "row-wise softmax (vector unit)");
  static const SchemaOf<VecSpec> ln =
      make("layernorm", "row-wise layer normalisation (vector unit)");
  static const SchemaOf<VecSpec> rms = make("rmsnorm", "row-wise RMS normalisation (vector unit)");
  static const SchemaOf<VecSpec> gelu = make("gelu", "elementwise GELU (vector unit)");
  static const SchemaOf<VecSpec> silu = make("silu", "elementwise SiLU (vector unit)");
  static const SchemaOf<VecSpec> add =
      make("add", "elementwise residual add of two tensors (vector unit)");
  static const SchemaOf<VecSpec> mul =
      make("mul", "elementwise product of two tensors, e.g. SwiGLU gating (vector unit)");
  switch (op) {
    case LayerOp::kSoftmax:
      return softmax;
    case LayerOp::kLayerNorm:
      return ln;
    case LayerOp::kRmsNorm:
      return rms;
    case LayerOp::kGelu:
      return gelu;
    case LayerOp::kSilu:
      return silu;
    case LayerOp::kMul:
      return mul;
    default:
      return add;
  }
}

// Replaces expressions in the integer fields of a layer node by their values.
Node with_params(const Node& n, const config::Schema& schema, const Params& params,
                 const std::string& path) {
  Node out = n;
  for (auto& e : out.entries()) {
    const auto* entry = schema.find(e.key);
    if (!entry || entry->is_group || entry->type != config::ParamType::kInt || !e.value.is_scalar())
      continue;
    if (is_int_literal(e.value.text())) continue;
    const auto v = eval_int_expr(e.value.text(), params, e.value.origin(), path + "." + e.key);
    e.value = Node::scalar(std::to_string(v), e.value.origin());
  }
  return out;
}

template <class S>
void fill_common(Layer& l, const S& spec, LayerOp op, size_t index) {
  l.name = spec.name.empty() ? fmt::format("{}{}", layer_op_name(op), index) : spec.name;
  l.op = op;
  l.repeat = spec.repeat;
  l.dtype = spec.dtype;
}

Layer parse_layer(const Node& n, const std::string& path, size_t index, const Params& params) {
  if (!n.is_map())
    throw ConfigError(n.origin(), path,
                      fmt::format("expected a layer mapping, got {}", n.kind_name()));
  LayerOp op = LayerOp::kGemm;
  if (const Node* o = n.find("op")) {
    const std::string name = config::to_string(*o, path + ".op");
    std::vector<std::string> names;
    bool found = false;
    for (const auto& [k, v] : layer_ops()) {
      names.push_back(k);
      if (k == name) {
        op = v;
        found = true;
      }
    }
    if (!found)
      throw ConfigError(o->origin(), path + ".op",
                        fmt::format("unknown op '{}'{}; known ops: {}", name,
                                    did_you_mean(name, names), join(names)));
  }
  const Node node =
      with_params(is_collective_op(op) ? with_size(n, path) : n, layer_schema(op), params, path);
  Layer l;
  l.origin = n.origin();
  auto bad = [&](const std::string& field, const std::string& why) {
    throw ConfigError(n.origin(), path + (field.empty() ? "" : "." + field),
                      fmt::format("layer '{}': {}", l.name, why));
  };
  switch (op) {
    case LayerOp::kGemm: {
      const auto g = gemm_schema().load(node, path);
      fill_common(l, g, op, index);
      l.batch = g.batch;
      l.m = g.m;
      l.n = g.n;
      l.k = g.k;
      if (g.m * g.batch > kMaxDim)
        bad("m", fmt::format("batch x m = {} exceeds {}", g.m * g.batch, kMaxDim));
      break;
    }
    case LayerOp::kConv2d: {
      const auto c = conv_schema().load(node, path);
      fill_common(l, c, op, index);
      l.conv = {c.n, c.h, c.w, c.ch, c.k, c.r, c.s, c.stride, c.pad, c.dil, c.groups};
      if (c.ch % c.groups)
        bad("groups",
            fmt::format("input channels {} are not divisible by groups {}", c.ch, c.groups));
      if (c.k % c.groups)
        bad("groups", fmt::format("filters {} are not divisible by groups {}", c.k, c.groups));
      if (l.conv.p() < 1 || l.conv.q() < 1)
        bad("r", fmt::format(
                     "the {}x{} filter (dilation {}) is larger than the {}x{} input padded by {}",
                     c.r, c.s, c.dil, c.h, c.w, c.pad));
      if (l.conv.n * l.conv.p() * l.conv.q() > kMaxDim * 64)
        bad("n", "n x output pixels is beyond 2^30");
      break;
    }
    case LayerOp::kAttention: {
      const auto a = attn_schema().load(node, path);
      fill_common(l, a, op, index);
      l.attn = {a.batch,
                a.heads,
                a.kv_heads ? a.kv_heads : a.heads,
                a.seq_q,
                a.seq_kv ? a.seq_kv : a.seq_q,
                a.head_dim,
                a.causal};
      if (l.attn.kv_heads > l.attn.heads || l.attn.heads % l.attn.kv_heads)
        bad("kv_heads", fmt::format("heads {} are not divisible by kv_heads {}", l.attn.heads,
                                    l.attn.kv_heads));
      if (l.attn.causal && l.attn.seq_q > l.attn.seq_kv)
        bad("seq_q", fmt::format("causal attention needs seq_q <= seq_kv, got {} > {}",
                                 l.attn.seq_q, l.attn.seq_kv));
      break;
    }
    case LayerOp::kLstm: {
      const auto s = lstm_schema().load(node, path);
      fill_common(l, s, op, index);
      l.m = s.batch;
      l.k = s.input + s.hidden;
      l.n = 4 * s.hidden;
      if (s.repeat * s.steps > (1 << 20)) bad("steps", "repeat x steps exceeds 2^20");
      l.repeat = s.repeat * s.steps;  // one instance per time step (and stacked layer)
      l.steps = s.steps;
      break;
    }
    case LayerOp::kAllReduce:
    case LayerOp::kReduceScatter:
    case LayerOp::kAllGather:
    case LayerOp::kAllToAll: {
      const auto c = coll_schema(op).load(node, path);
      fill_common(l, c, op, index);
      l.coll.bytes = static_cast<std::uint64_t>(c.bytes);
      l.coll.algorithm = c.algorithm;
      read_group(n, path, l.coll);
      break;
    }
    default: {
      const auto v = vec_schema(op).load(node, path);
      fill_common(l, v, op, index);
      l.vec = {v.rows, v.cols};
      break;
    }
  }
  return l;
}

Params read_params(const Node* n, const std::string& path, const Params* declared) {
  Params p = declared ? *declared : Params{};
  if (!n || n->is_null()) return p;
  if (!n->is_map())
    throw ConfigError(n->origin(), path,
                      fmt::format("expected a mapping of integer params, got {}", n->kind_name()));
  for (const auto& e : n->entries()) {
    if (declared && !declared->count(e.key)) {
      std::vector<std::string> names;
      for (const auto& [k, v] : *declared) names.push_back(k);
      throw ConfigError(
          e.key_origin, path + "." + e.key,
          fmt::format("the workload has no parameter '{}'{}; params: {}", e.key,
                      did_you_mean(e.key, names), names.empty() ? "none" : join(names)));
    }
    p[e.key] = config::to_int(e.value, path + "." + e.key, 1, kMaxDim);
  }
  return p;
}

const std::vector<std::string> kFileKeys = {"name",   "source", "description",
                                            "params", "layers", "blocks"};
const std::vector<std::string> kSectionKeys = {"file",   "name",   "source", "description",
                                               "params", "layers", "blocks"};

void check_keys(const Node& n, const std::string& path, const std::vector<std::string>& allowed) {
  for (const auto& e : n.entries())
    if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end())
      throw ConfigError(
          e.key_origin, path.empty() ? e.key : path + "." + e.key,
          "unknown workload key" + did_you_mean(e.key, allowed) + "; allowed: " + join(allowed));
}

// A file named by `workload: {file: ...}` must look like a workload before anything of it is
// quoted in an error: a file that is no workload (/etc/shadow) is reported by its position only.
void check_workload_file(const Node& body) {
  if (!body.is_map() || !body.find("layers"))
    throw ConfigError(body.origin(), "",
                      "not a workload file: expected a mapping with 'layers:' (and optionally "
                      "name, source, description, params)");
}

// `inputs:` of the last layer in `layers`: the names of earlier layers whose outputs it reads
// (or `input`, the workload's input), one name or a list (Layer::inputs).
void read_inputs(const Node& layer, const std::string& path, std::vector<Layer>& layers) {
  const Node* n = layer.find("inputs");
  if (!n) return;
  const std::string ipath = path + ".inputs";
  std::vector<Node> items = n->is_seq() ? n->items() : std::vector<Node>{*n};
  if (n->is_seq() && items.empty())
    throw ConfigError(n->origin(), ipath, "expected one or more layer names, got an empty list");
  std::vector<std::string> earlier{kWorkloadInput};
  for (size_t j = 0; j + 1 < layers.size(); ++j) earlier.push_back(layers[j].name);
  for (size_t j = 0; j < items.size(); ++j) {
    const std::string at = n->is_seq() ? fmt::format("{}[{}]", ipath, j) : ipath;
    const std::string name = config::to_string(items[j], at);
    if (std::find(earlier.begin(), earlier.end(), name) == earlier.end())
      throw ConfigError(
          items[j].origin(), at,
          fmt::format("layer '{}' reads '{}', which is no layer before it{}; "
                      "inputs name earlier layers, or '{}' for the workload's input",
                      layers.back().name, name, did_you_mean(name, earlier), kWorkloadInput));
    layers.back().inputs.push_back(name);
  }
}

// `blocks: N` (an expression over the params; default 1): the layer list is one block of a stack
// of N run in sequence (transformer blocks). With N > 1 block i's layers are named
// `b<i>.<name>`, their inputs name layers of the same block, and a block's `input` is the output
// of the block before it (the workload's input for block 0).
void repeat_blocks(const Node& n, const std::string& path, const Params& params,
                   std::vector<Layer>& layers) {
  const Node* b = n.find("blocks");
  if (!b) return;
  const std::string bpath = path.empty() ? "blocks" : path + ".blocks";
  const std::int64_t blocks = eval_int_expr(b->text(), params, b->origin(), bpath);
  if (blocks < 1 || blocks > 4096)
    throw ConfigError(b->origin(), bpath,
                      fmt::format("blocks = {}: expected 1 to 4096 blocks", blocks));
  if (blocks == 1) return;
  const std::vector<Layer> block = layers;
  layers.clear();
  for (std::int64_t i = 0; i < blocks; ++i) {
    const std::string prefix = fmt::format("b{}.", i);
    const std::string before = i == 0 ? kWorkloadInput : layers.back().name;
    for (Layer l : block) {
      l.name = prefix + l.name;
      for (auto& in : l.inputs) in = in == kWorkloadInput ? before : prefix + in;
      layers.push_back(std::move(l));
    }
  }
}

void read_layers(const Node& n, const std::string& path, const Params& params, Workload& w) {
  const Node* layers = n.find("layers");
  if (!layers) throw ConfigError(n.origin(), path, "missing 'layers:' list");
  const std::string lpath = path.empty() ? "layers" : path + ".layers";
  if (!layers->is_seq())
    throw ConfigError(layers->origin(), lpath,
                      fmt::format("expected a list of layers, got {}", layers->kind_name()));
  if (layers->items().empty())
    throw ConfigError(layers->origin(), lpath, "the workload has no layers");
  for (size_t i = 0; i < layers->items().size(); ++i) {
    const std::string at = fmt::format("{}[{}]", lpath, i);
    w.layers.push_back(parse_layer(layers->items()[i], at, i, params));
    read_inputs(layers->items()[i], at, w.layers);
  }
  repeat_blocks(n, path, params, w.layers);
}

// A SCALE-Sim topology CSV (conv or `Layer, M, N, K` format) as int8 layers: its IFMAP sizes
// already include padding, so pad is 0; SCALE-Sim runs batch 1.
Workload from_scalesim_csv(const std::string& file, const Node& section, const std::string& path) {
  if (section.is_map() && section.find("params"))
    throw ConfigError(section.find("params")->origin(), path + ".params",
                      "a SCALE-Sim topology has no parameters");
  const ScalesimTopology t = load_scalesim_topology(file);
  Workload w;
  w.name = t.name;
  w.file = file;
  w.source = "SCALE-Sim topology " + file;
  for (const auto& tl : t.layers) {
    const auto& s = tl.layer;
    Layer l;
    l.name = s.name;
    l.dtype = DataType::kInt8;
    l.origin = {file, tl.line, 0};
    if (t.gemm) {
      l.op = LayerOp::kGemm;
      l.m = s.gemm_m();
      l.n = s.gemm_n();
      l.k = s.gemm_k();
    } else {
      if (s.stride_h != s.stride_w)
        throw ConfigError(l.origin, path + ".file",
                          fmt::format("layer '{}': strides {} and {} differ; conv2d layers use one "
                                      "stride for both dimensions",
                                      s.name, s.stride_h, s.stride_w));
      l.op = LayerOp::kConv2d;
      l.conv = {1,          s.ifmap_h, s.ifmap_w, s.channels, s.num_filters, s.filter_h, s.filter_w,
                s.stride_h, 0,         1,         1};
    }
    w.layers.push_back(l);
  }
  if (section.is_map())
    if (const Node* v = section.find("name")) w.name = config::to_string(*v, path + ".name");
  return w;
}

}  // namespace

const std::vector<std::pair<std::string, LayerOp>>& layer_ops() {
  static const std::vector<std::pair<std::string, LayerOp>> ops = {
      {"gemm", LayerOp::kGemm},
      {"conv2d", LayerOp::kConv2d},
      {"attention", LayerOp::kAttention},
      {"softmax", LayerOp::kSoftmax},
      {"layernorm", LayerOp::kLayerNorm},
      {"rmsnorm", LayerOp::kRmsNorm},
      {"gelu", LayerOp::kGelu},
      {"silu", LayerOp::kSilu},
      {"add", LayerOp::kAdd},
      {"mul", LayerOp::kMul},
      {"lstm", LayerOp::kLstm},
      {"all_reduce", LayerOp::kAllReduce},
      {"reduce_scatter", LayerOp::kReduceScatter},
      {"all_gather", LayerOp::kAllGather},
      {"all_to_all", LayerOp::kAllToAll}};
  return ops;
}

const config::Schema& layer_schema(LayerOp op) {
  switch (op) {
    case LayerOp::kGemm:
      return gemm_schema();
    case LayerOp::kConv2d:
      return conv_schema();
    case LayerOp::kAttention:
      return attn_schema();
    case LayerOp::kLstm:
      return lstm_schema();
    case LayerOp::kAllReduce:
    case LayerOp::kReduceScatter:
    case LayerOp::kAllGather:
    case LayerOp::kAllToAll:
      return coll_schema(op);
    default:
      return vec_schema(op);
  }
}

Workload load_workload(const Node& node, const std::string& path) {
  Workload w;
  const Node* file = nullptr;
  Node holder;
  if (node.is_scalar()) {
    holder = Node::map(node.origin());
    holder.set("file", node);
    file = holder.find("file");
  } else if (node.is_map()) {
    check_keys(node, path, kSectionKeys);
    file = node.find("file");
  } else {
    throw ConfigError(node.origin(), path,
                      fmt::format("expected a workload file name or a mapping with 'file:' or "
                                  "'layers:', got {}",
                                  node.kind_name()));
  }
  const Node* overrides = node.is_map() ? node.find("params") : nullptr;
  if (file) {
    if (node.is_map() && node.find("layers"))
      throw ConfigError(node.find("layers")->origin(), path + ".layers",
                        "give either 'file:' or 'layers:', not both");
    const std::string name = config::to_string(*file, path + ".file");
    const std::string resolved = config::find_referenced_file(name, file->origin(), path + ".file");
    if (resolved.size() > 4 && resolved.compare(resolved.size() - 4, 4, ".csv") == 0)
      return from_scalesim_csv(resolved, node, path);
    const Node body = config::load_yaml_file(resolved, file->origin());
    check_workload_file(body);
    check_keys(body, "", kFileKeys);
    if (const Node* v = body.find("name")) w.name = config::to_string(*v, "name");
    if (const Node* v = body.find("source")) w.source = config::to_string(*v, "source");
    const Params declared = read_params(body.find("params"), "params", nullptr);
    read_layers(body, "", read_params(overrides, path + ".params", &declared), w);
    w.file = resolved;
  } else {
    if (const Node* v = node.find("source")) w.source = config::to_string(*v, path + ".source");
    read_layers(node, path, read_params(overrides, path + ".params", nullptr), w);
  }
  if (node.is_map())
    if (const Node* v = node.find("name")) w.name = config::to_string(*v, path + ".name");
  if (w.name.empty()) w.name = w.file.empty() ? "inline" : w.file;
  return w;
}

}  // namespace systole::workloads
