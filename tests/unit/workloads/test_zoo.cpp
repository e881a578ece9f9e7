// The model zoo: every network loads, and its size matches what its paper (or the reference
// implementation) publishes — so a typo in a shape cannot go unnoticed.
#include <catch2/catch.hpp>

#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "tests/support/temp_dir.h"
#include "workloads/frontends/yaml_workload.h"

using namespace systole;
using workloads::LayerOp;

namespace {

workloads::Workload zoo(const std::string& file, const std::string& params = "") {
  std::string yaml = "file: " + test::source_dir() + "/workloads/" + file + "\n";
  if (!params.empty()) yaml += "params: " + params + "\n";
  return workloads::load_workload(config::parse_yaml(yaml, "experiment.yaml"));
}

struct Totals {
  double macs = 0;     // all MXU work (GEMM, conv, attention), every repeat
  double weights = 0;  // GEMM and conv weights, every repeat
};

Totals totals(const workloads::Workload& w) {
  Totals t;
  for (const auto& l : w.layers) {
    const double rep = static_cast<double>(l.repeat);
    t.macs += rep * static_cast<double>(l.macs());
    if (l.op == LayerOp::kGemm) t.weights += rep * static_cast<double>(l.n * l.k);
    if (l.op == LayerOp::kConv2d)
      t.weights +=
          rep * static_cast<double>(l.conv.k * l.conv.r * l.conv.s * (l.conv.c / l.conv.groups));
  }
  return t;
}

}  // namespace

TEST_CASE("zoo: ResNet-50 has 4.09 GMACs and 25.5 M weights at batch 1", "[unit][zoo]") {
  // torchvision's ResNet-50 (v1.5): 4.09 GFLOPS (multiply-adds), 25.6 M parameters of which
  // 53,120 are batch-norm and 1,000 bias, not modelled here.
  const auto t = totals(zoo("resnet50.yaml"));
  CHECK(t.macs == Approx(4.09e9).epsilon(0.005));
  CHECK(t.weights == Approx(25.557e6 - 53120 - 1000).epsilon(0.001));
  // The batch parameter scales every layer.
  CHECK(totals(zoo("resnet50.yaml", "{batch: 8}")).macs == Approx(8 * t.macs));
}

TEST_CASE("zoo: MobileNetV2 has 300 M multiply-adds and 3.4 M weights", "[unit][zoo]") {
  // Sandler et al. 2018, Table 4: 300 M MAdds, 3.4 M parameters (width 1.0, 224x224).
  const auto w = zoo("mobilenet_v2.yaml");
  const auto t = totals(w);
  CHECK(t.macs == Approx(300e6).epsilon(0.01));
  CHECK(t.weights == Approx(3.4e6).epsilon(0.03));
  std::int64_t depthwise = 0;
  for (const auto& l : w.layers)
    if (l.op == LayerOp::kConv2d && l.conv.groups == l.conv.c && l.conv.c > 1)
      depthwise += l.repeat;
  CHECK(depthwise == 17);  // one 3x3 depthwise convolution per bottleneck: 1+2+3+4+3+3+1
}

TEST_CASE("zoo: ViT-B/16 has 86 M weights", "[unit][zoo]") {
  // Dosovitskiy et al. 2021, Table 1: ViT-Base 86 M parameters.
  CHECK(totals(zoo("vit_b16.yaml")).weights == Approx(86e6).epsilon(0.01));
}

TEST_CASE("zoo: transformer blocks have their published weight counts", "[unit][zoo]") {
  // BERT-large: 24 x 12 x 1024^2 = 302 M encoder weights (of 340 M with embeddings).
  CHECK(totals(zoo("bert_large.yaml")).weights == 24.0 * 12 * 1024 * 1024);
  // GPT-3 175B: one block = 12 x 12288^2 = 1.81 G; x 96 layers = 174 G of the 175 G.
  CHECK(totals(zoo("gpt3_175b.yaml")).weights == 12.0 * 12288 * 12288);
  // Llama-2-70B: one block = 8192 x (8192 + 2048) + 8192^2 + 3 x 8192 x 28672 = 855.6 M;
  // x 80 layers + 2 x 32000 x 8192 embeddings = 68.98 G (Meta: "70B").
  CHECK(totals(zoo("llama2_70b.yaml")).weights == 855638016.0);
}

TEST_CASE("zoo: prefill and decode of one GPT-3 block", "[unit][zoo]") {
  const auto prefill = zoo("gpt3_175b.yaml");
  const auto decode = zoo("gpt3_175b.yaml", "{tokens: 1, context: 2048}");
  const workloads::Layer* attn = nullptr;
  for (const auto& l : decode.layers)
    if (l.op == LayerOp::kAttention) attn = &l;
  REQUIRE(attn);
  CHECK(attn->attn.seq_q == 1);
  CHECK(attn->attn.seq_kv == 2048);
  CHECK(attn->attn.causal);
  // Decode computes one new token: 1/2048 of the GEMM work of the prefill.
  CHECK(totals(decode).macs < totals(prefill).macs / 1000);
}

TEST_CASE("zoo: Llama-2-70B uses grouped-query attention", "[unit][zoo]") {
  for (const auto& l : zoo("llama2_70b.yaml").layers)
    if (l.op == LayerOp::kAttention) {
      CHECK(l.attn.heads == 64);
      CHECK(l.attn.kv_heads == 8);
      CHECK(l.attn.group() == 8);
    }
}

TEST_CASE("attention MACs count only unmasked scores when causal", "[unit][ir]") {
  workloads::Layer l;
  l.op = LayerOp::kAttention;
  l.attn = {2, 4, 4, 8, 8, 16, false};
  CHECK(l.macs() == 2u * 2 * 4 * 8 * 8 * 16);
  l.attn.causal = true;
  // 8 queries see 1..8 keys: 36 scores per head.
  CHECK(l.macs() == 2u * 2 * 4 * 36 * 16);
  // Decode: 1 query against a cache of 8 sees all 8.
  l.attn.seq_q = 1;
  CHECK(l.attn.scores_per_head() == 8);
}

TEST_CASE("bad workloads name file, line and layer", "[unit][zoo][errors]") {
  test::TempDir dir;
  auto error_of = [&](const std::string& layers, const std::string& params = "") {
    const std::string f = dir.write("w.yaml", "name: w\nparams: {batch: 1}\nlayers:\n" + layers);
    try {
      workloads::load_workload(config::parse_yaml("file: " + f + "\n" + params, "e.yaml"));
    } catch (const ConfigError& e) {
      return std::string(e.what()).substr(f.size());
    }
    return std::string("no error");
  };
  CHECK(
      error_of("  - {name: a, op: attention, heads: 12, kv_heads: 5, seq_q: 8, head_dim: 64}\n") ==
      ":4:5: layers[0].kv_heads: layer 'a': heads 12 are not divisible by kv_heads 5");
  CHECK(error_of("  - {name: c, op: conv2d, h: 4, w: 4, c: 3, k: 8, r: 7, s: 7}\n") ==
        ":4:5: layers[0].r: layer 'c': the 7x7 filter (dilation 1) is larger than the 4x4 input "
        "padded by 0");
  CHECK(error_of("  - {name: g, op: conv2d, h: 8, w: 8, c: 6, k: 8, r: 3, s: 3, groups: 4}\n") ==
        ":4:5: layers[0].groups: layer 'g': input channels 6 are not divisible by groups 4");
  CHECK(error_of("  - {name: x, op: gemm, m: batchh * 4, n: 8, k: 8}\n") ==
        ":4:28: layers[0].m: unknown parameter 'batchh' in 'batchh * 4' (did you mean 'batch'?); "
        "params: batch");
  CHECK(error_of("  - {name: x, op: gemm, m: 0, n: 8, k: 8}\n") ==
        ":4:28: layers[0].m: expected an integer in [1, 16777216], got 0");
  CHECK(
      error_of("  - {name: x, op: convv, m: 1}\n") ==
      ":4:19: layers[0].op: unknown op 'convv' (did you mean 'conv2d'?); known ops: gemm, conv2d, "
      "attention, softmax, layernorm, rmsnorm, gelu, silu, add, mul, lstm, "
      "all_reduce, reduce_scatter, all_gather, all_to_all");
  // An experiment overriding a parameter the workload does not declare.
  try {
    const std::string f =
        dir.write("w.yaml", "name: w\nparams: {batch: 1}\nlayers: [{m: 4, n: 8, k: 8}]\n");
    workloads::load_workload(config::parse_yaml("file: " + f + "\nparams: {bacth: 2}\n", "e.yaml"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "e.yaml:2:10: workload.params.bacth: the workload has no parameter 'bacth' (did you mean "
          "'batch'?); params: batch");
  }
}

TEST_CASE("SCALE-Sim topology CSVs are workloads too", "[unit][zoo]") {
  const std::string dir = test::source_dir() + "/tests/data/scalesim/topologies/";
  auto load = [&](const std::string& f) {
    return workloads::load_workload(config::parse_yaml("file: " + dir + f + "\n", "e.yaml"));
  };
  const auto conv = load("alexnet.csv");
  REQUIRE(conv.layers.size() == 5);
  const auto& c1 = conv.layers[0];
  CHECK(c1.op == LayerOp::kConv2d);
  CHECK(c1.dtype == DataType::kInt8);  // SCALE-Sim's 1-byte words
  CHECK(c1.conv.h == 224);
  CHECK(c1.conv.r == 11);
  CHECK(c1.conv.c == 3);
  CHECK(c1.conv.k == 96);
  CHECK(c1.conv.stride == 4);
  CHECK(c1.conv.pad == 0);  // SCALE-Sim's IFMAP sizes already include padding
  CHECK(c1.origin.line == 2);
  const auto gemm = load("test_mnk.csv");
  REQUIRE(gemm.layers.size() == 1);
  CHECK(gemm.layers[0].op == LayerOp::kGemm);
  CHECK(gemm.layers[0].m == 128);
  CHECK(gemm.layers[0].n == 64);
  CHECK(gemm.layers[0].k == 256);
}
