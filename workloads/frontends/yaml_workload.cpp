#include "workloads/frontends/yaml_workload.h"

#include <fmt/format.h>

#include "sim/core/text.h"

namespace systole::workloads {

using config::Node;

namespace {

struct GemmSpec {
  std::string name;
  std::string op;
  std::int64_t batch = 0, m = 0, n = 0, k = 0, repeat = 0;
  models::DataType dtype = models::DataType::kBf16;
};

constexpr std::int64_t kMaxDim = 1ll
                                 << 24;  // 16M: far beyond any real layer, keeps MACs in 64 bits

const config::SchemaOf<GemmSpec>& gemm_schema() {
  static const config::SchemaOf<GemmSpec> s = [] {
    config::SchemaOf<GemmSpec> b("gemm", "C[m x n] = A[m x k] * B[k x n], B shared over the batch");
    b.text("name", &GemmSpec::name, std::string(""), "layer name (defaults to op and index)")
        .text("op", &GemmSpec::op, std::string("gemm"), "layer operation")
        .integer("batch", &GemmSpec::batch, 1, 1, kMaxDim, "batch (folds into m)")
        .integer("m", &GemmSpec::m, std::nullopt, 1, kMaxDim, "rows of A and C")
        .integer("n", &GemmSpec::n, std::nullopt, 1, kMaxDim, "columns of B and C")
        .integer("k", &GemmSpec::k, std::nullopt, 1, kMaxDim, "reduction length")
        .integer("repeat", &GemmSpec::repeat, 1, 1, 1 << 20, "identical layers in a row")
        .choice<models::DataType>("dtype", &GemmSpec::dtype,
                                  {{"bf16", models::DataType::kBf16},
                                   {"int8", models::DataType::kInt8},
                                   {"fp8_e4m3", models::DataType::kFp8E4M3},
                                   {"fp8_e5m2", models::DataType::kFp8E5M2}},
                                  std::string("bf16"), "operand type");
    return b;
  }();
  return s;
}

Layer parse_layer(const Node& n, const std::string& path, size_t index) {
  if (!n.is_map())
    throw ConfigError(n.origin(), path,
                      fmt::format("expected a layer mapping, got {}", n.kind_name()));
  static const std::vector<std::string> ops = {"gemm"};
  if (const Node* op = n.find("op")) {
    const std::string o = config::to_string(*op, path + ".op");
    if (o != "gemm")
      throw ConfigError(
          op->origin(), path + ".op",
          fmt::format("unknown op '{}'{}; known ops: {}", o, did_you_mean(o, ops), join(ops)));
  }
  GemmSpec g = gemm_schema().load(n, path);
  if (g.m * g.batch > kMaxDim)
    throw ConfigError(n.origin(), path,
                      fmt::format("batch x m = {} exceeds {}", g.m * g.batch, kMaxDim));
  Layer l;
  l.name = g.name.empty() ? fmt::format("gemm{}", index) : g.name;
  l.op = LayerOp::kGemm;
  l.batch = g.batch;
  l.m = g.m;
  l.n = g.n;
  l.k = g.k;
  l.repeat = g.repeat;
  l.dtype = g.dtype;
  l.origin = n.origin();
  return l;
}

void parse_layers(const Node& n, const std::string& path, Workload& w) {
  if (!n.is_seq())
    throw ConfigError(n.origin(), path,
                      fmt::format("expected a list of layers, got {}", n.kind_name()));
  if (n.items().empty()) throw ConfigError(n.origin(), path, "the workload has no layers");
  for (size_t i = 0; i < n.items().size(); ++i)
    w.layers.push_back(parse_layer(n.items()[i], fmt::format("{}[{}]", path, i), i));
}

const std::vector<std::string> kFileKeys = {"name", "source", "description", "layers"};
const std::vector<std::string> kSectionKeys = {"file", "name", "source", "description", "layers"};

void check_keys(const Node& n, const std::string& path, const std::vector<std::string>& allowed) {
  for (const auto& e : n.entries())
    if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end())
      throw ConfigError(
          e.key_origin, path.empty() ? e.key : path + "." + e.key,
          "unknown workload key" + did_you_mean(e.key, allowed) + "; allowed: " + join(allowed));
}

void read_body(const Node& n, const std::string& path, Workload& w) {
  if (const Node* v = n.find("name")) w.name = config::to_string(*v, path + ".name");
  if (const Node* v = n.find("source")) w.source = config::to_string(*v, path + ".source");
  const Node* layers = n.find("layers");
  if (!layers) throw ConfigError(n.origin(), path, "missing 'layers:' list");
  parse_layers(*layers, path.empty() ? "layers" : path + ".layers", w);
}

}  // namespace

const config::Schema& gemm_layer_schema() { return gemm_schema(); }

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
  if (file) {
    const std::string name = config::to_string(*file, path + ".file");
    const std::string resolved = config::find_referenced_file(name, file->origin(), path + ".file");
    const Node body = config::load_yaml_file(resolved, file->origin());
    if (!body.is_map())
      throw ConfigError(body.origin(), "", "a workload file must hold a mapping with 'layers:'");
    check_keys(body, "", kFileKeys);
    read_body(body, "", w);
    w.file = resolved;
    if (node.is_map() && node.find("layers"))
      throw ConfigError(node.find("layers")->origin(), path + ".layers",
                        "give either 'file:' or 'layers:', not both");
  } else {
    read_body(node, path, w);
  }
  if (node.is_map()) {
    if (const Node* v = node.find("name")) w.name = config::to_string(*v, path + ".name");
  }
  if (w.name.empty()) w.name = w.file.empty() ? "inline" : w.file;
  return w;
}

}  // namespace systole::workloads
