// Output fusion: which elementwise layers join the GEMM before them, and what a fused GEMM's
// program does: every output tile passes through one vector op (reading the epilogue's inputs
// from HBM) before it is stored, and the fused layer's bounds carry the fused work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "tests/support/tiny_chip.h"
#include "workloads/frontends/yaml_workload.h"
#include "workloads/lowering/tpu_layer_lowering.h"
#include "workloads/mapping/layer_plan.h"
#include "workloads/mapping/tpu_gemm_mapping.h"

using namespace systole;
using test::chip_with;
using workloads::LayerOp;

namespace {

workloads::Layer gemm(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k) {
  workloads::Layer l;
  l.name = name;
  l.m = m;
  l.n = n;
  l.k = k;
  return l;
}

workloads::Layer vec(const std::string& name, LayerOp op, std::int64_t rows, std::int64_t cols) {
  workloads::Layer l;
  l.name = name;
  l.op = op;
  l.vec = {rows, cols};
  return l;
}

std::vector<std::string> names(const std::vector<workloads::Layer>& ls) {
  std::vector<std::string> v;
  for (const auto& l : ls) v.push_back(l.name);
  return v;
}

}  // namespace

TEST_CASE("fusion: elementwise layers over a GEMM's output join its epilogue", "[unit][fusion]") {
  const auto w = workloads::load_workload(config::parse_yaml(
      "file: " + test::source_dir() + "/workloads/gpt3_175b.yaml\n", "experiment.yaml"));
  const auto fused = workloads::fuse_epilogues(w.layers);
  CHECK(names(fused) == std::vector<std::string>{"attn_norm", "qkv_proj", "attention",
                                                 "out_proj+attn_residual", "mlp_norm",
                                                 "mlp_up+mlp_gelu", "mlp_down+mlp_residual"});
  REQUIRE(fused[5].epilogue.size() == 1);
  CHECK(fused[5].epilogue[0].op == LayerOp::kGelu);
  CHECK(fused[5].epilogue[0].extra_inputs == 0);
  CHECK(fused[3].epilogue[0].extra_inputs == 1);  // the residual

  // What does not fuse: norms and softmax (row reductions), other shapes, other repeat counts
  // or dtypes, anything after a non-GEMM; chains of elementwise ops do.
  auto rep = vec("r", LayerOp::kAdd, 64, 128);
  rep.repeat = 2;
  auto i8 = vec("i", LayerOp::kGelu, 64, 128);
  i8.dtype = DataType::kInt8;
  const std::vector<workloads::Layer> ls = {gemm("g", 64, 128, 32),
                                            vec("n", LayerOp::kLayerNorm, 64, 128),
                                            gemm("h", 64, 128, 32),
                                            vec("half", LayerOp::kSilu, 64, 64),
                                            gemm("j", 64, 128, 32),
                                            rep,
                                            i8,
                                            vec("after", LayerOp::kAdd, 64, 128),
                                            gemm("k", 64, 128, 32),
                                            vec("a", LayerOp::kGelu, 64, 128),
                                            vec("b", LayerOp::kMul, 128, 64)};
  CHECK(names(workloads::fuse_epilogues(ls)) ==
        std::vector<std::string>{"g", "n", "h", "half", "j", "r", "i", "after", "k+a+b"});
}

TEST_CASE("fusion: every output tile goes through the epilogue before its store",
          "[unit][fusion]") {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> dim(1, 1500), op(0, 3), count(1, 3);
  const LayerOp ops[] = {LayerOp::kGelu, LayerOp::kSilu, LayerOp::kAdd, LayerOp::kMul};
  const char* chips[] = {"chip: {}", "chip: {vmem: {capacity: 1MiB}, cmem: {capacity: 2MiB}}",
                         "chip: {tensor_cores: 1, mxus_per_core: 2, mxu: {rows: 32, cols: 16}, "
                         "vmem: {capacity: 256KiB}}"};
  for (int i = 0; i < 60; ++i) {
    const auto chip = chip_with(chips[i % 3]);
    std::vector<workloads::Layer> ls = {gemm("g", dim(rng), dim(rng), dim(rng))};
    const std::int64_t M = ls[0].m, N = ls[0].n;
    double ops_per_element = 0;
    std::uint64_t inputs = 0;
    for (int e = count(rng); e > 0; --e) {
      const LayerOp o = ops[op(rng)];
      ls.push_back(vec("e", o, M, N));
      ops_per_element += workloads::vector_ops_per_element(o, chip.vector.ops);
      inputs += (o == LayerOp::kAdd || o == LayerOp::kMul) ? 1 : 0;
    }
    const auto fused = workloads::fuse_epilogues(ls);
    REQUIRE(fused.size() == 1);
    INFO("case " << i << ": " << fused[0].name << " " << fused[0].shape());
    const auto low = workloads::lower_layer(chip, fused[0], {});
    const auto plain = workloads::lower_layer(chip, ls[0], {});
    const auto& prog = low.program;
    const auto elements = static_cast<std::uint64_t>(M * N);
    std::uint64_t lane_ops = 0, stored = 0;
    for (std::uint32_t j = 0; j < prog.ops.size(); ++j) {
      const auto& o = prog.ops[j];
      for (auto d : o.deps) REQUIRE(d < j);
      if (o.kind == models::OpKind::kVector) {
        lane_ops += o.lane_ops;
        for (auto d : o.deps) CHECK(prog.ops[d].kind != models::OpKind::kStore);
      }
      if (o.kind == models::OpKind::kStore && o.memory == 0) {
        stored += o.bytes;
        bool after_epilogue = false;
        for (auto d : o.deps) after_epilogue |= prog.ops[d].kind == models::OpKind::kVector;
        CHECK(after_epilogue);  // no tile leaves before its epilogue ran
      }
    }
    CHECK(stored == elements * 2);
    // The fused work: each element's ops (rounded up per tile) and its extra inputs read once.
    CHECK(lane_ops >= static_cast<std::uint64_t>(static_cast<double>(elements) * ops_per_element));
    CHECK(low.bounds.lane_ops ==
          static_cast<std::uint64_t>(std::ceil(static_cast<double>(elements) * ops_per_element)));
    CHECK(low.bounds.compulsory_bytes == plain.bounds.compulsory_bytes + elements * 2 * inputs);
    CHECK(low.planned_bytes >= plain.bounds.compulsory_bytes + elements * 2 * inputs);
  }
}

TEST_CASE("fusion: a gated linear unit (SwiGLU) joins the GEMM, which stores the gated half",
          "[unit][fusion]") {
  const auto w = workloads::load_workload(config::parse_yaml(
      "file: " + test::source_dir() + "/workloads/llama2_70b.yaml\n", "experiment.yaml"));
  const auto fused = workloads::fuse_epilogues(w.layers);
  CHECK(names(fused) ==
        std::vector<std::string>{"attn_norm", "qkv_proj", "attention", "out_proj+attn_residual",
                                 "mlp_norm", "gate_up_proj+silu+gate", "down_proj+mlp_residual"});
  const auto& glu = fused[5];
  CHECK(glu.glu);
  CHECK(glu.out_cols() == 28672);
  REQUIRE(glu.epilogue.size() == 2);
  CHECK(glu.epilogue[0].op == LayerOp::kSilu);
  CHECK(glu.epilogue[1].op == LayerOp::kMul);
  CHECK(glu.epilogue[0].extra_inputs + glu.epilogue[1].extra_inputs == 0);  // its own halves
  CHECK(!fused[3].glu);

  // Not a GLU: no product after the activation, a product of another size, an odd N, a GEMM
  // whose epilogue already began. A residual add over the gated half joins it.
  auto geglu = gemm("q", 64, 256, 32);
  const std::vector<workloads::Layer> ls = {gemm("g", 64, 256, 32),
                                            vec("act", LayerOp::kSilu, 64, 128),
                                            vec("n", LayerOp::kLayerNorm, 64, 128),
                                            gemm("h", 64, 256, 32),
                                            vec("act", LayerOp::kGelu, 64, 128),
                                            vec("m", LayerOp::kMul, 64, 64),
                                            gemm("j", 64, 255, 32),
                                            vec("act", LayerOp::kSilu, 64, 127),
                                            vec("m", LayerOp::kMul, 64, 127),
                                            gemm("k", 64, 256, 32),
                                            vec("b", LayerOp::kGelu, 64, 256),
                                            vec("act", LayerOp::kSilu, 64, 128),
                                            vec("m", LayerOp::kMul, 64, 128),
                                            geglu,
                                            vec("gelu", LayerOp::kGelu, 64, 128),
                                            vec("m", LayerOp::kMul, 64, 128),
                                            vec("res", LayerOp::kAdd, 64, 128)};
  const auto f = workloads::fuse_epilogues(ls);
  CHECK(names(f) == std::vector<std::string>{"g", "act", "n", "h", "act", "m", "j", "act", "m",
                                             "k+b", "act", "m", "q+gelu+m+res"});
  CHECK(f.back().glu);
  CHECK(f.back().epilogue.back().extra_inputs == 1);
}

TEST_CASE("fusion: a GLU GEMM stores every gated element once, after its epilogue",
          "[unit][fusion]") {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> dim(1, 1500), half(1, 900), with_add(0, 1);
  // The last chip's odd MXU width: tiles and core shares must still hold whole pairs.
  const char* chips[] = {"chip: {}", "chip: {vmem: {capacity: 1MiB}, cmem: {capacity: 2MiB}}",
                         "chip: {tensor_cores: 1, mxus_per_core: 2, mxu: {rows: 32, cols: 16}, "
                         "vmem: {capacity: 256KiB}}",
                         "chip: {mxus_per_core: 1, mxu: {rows: 16, cols: 5}, "
                         "vmem: {capacity: 512KiB}}"};
  for (int i = 0; i < 48; ++i) {
    const auto chip = chip_with(chips[i % 4]);
    const std::int64_t M = dim(rng), F = half(rng), K = dim(rng);
    const LayerOp act = i % 2 ? LayerOp::kSilu : LayerOp::kGelu;
    const bool add = with_add(rng) != 0;
    std::vector<workloads::Layer> ls = {gemm("g", M, 2 * F, K), vec("act", act, M, F),
                                        vec("m", LayerOp::kMul, M, F)};
    if (add) ls.push_back(vec("res", LayerOp::kAdd, M, F));
    const auto fused = workloads::fuse_epilogues(ls);
    REQUIRE(fused.size() == 1);
    REQUIRE(fused[0].glu);
    INFO("case " << i << ": " << fused[0].name << " " << fused[0].shape());
    const auto low = workloads::lower_layer(chip, fused[0], {});
    const auto& prog = low.program;
    const double ops_per_element =
        workloads::vector_ops_per_element(act, chip.vector.ops) +
        workloads::vector_ops_per_element(LayerOp::kMul, chip.vector.ops) +
        (add ? workloads::vector_ops_per_element(LayerOp::kAdd, chip.vector.ops) : 0.0);
    const auto gated = static_cast<std::uint64_t>(M * F);
    // Every byte of the gated output (M x F bf16, row-major) is stored exactly once.
    std::vector<std::uint64_t> written;
    std::uint64_t moved = 0, lane_ops = 0;
    for (std::uint32_t j = 0; j < prog.ops.size(); ++j) {
      const auto& o = prog.ops[j];
      if (o.kind == models::OpKind::kVector) lane_ops += o.lane_ops;
      if ((o.kind != models::OpKind::kLoad && o.kind != models::OpKind::kStore) || o.memory != 0)
        continue;
      moved += o.bytes;
      if (o.kind != models::OpKind::kStore) continue;
      bool after_epilogue = false;
      for (auto d : o.deps) after_epilogue |= prog.ops[d].kind == models::OpKind::kVector;
      CHECK(after_epilogue);
      REQUIRE(o.mem.bytes() == o.bytes);
      for (std::uint64_t r = 0; r < o.mem.dims[0].count; ++r)
        for (std::uint64_t b = 0; b < o.mem.row_bytes; b += 2)
          written.push_back(o.mem.addr + r * o.mem.dims[0].stride + b);
    }
    REQUIRE(!written.empty());
    std::sort(written.begin(), written.end());
    CHECK(std::adjacent_find(written.begin(), written.end()) == written.end());  // no twice
    CHECK(written.size() == gated);
    CHECK(written.back() - written.front() == 2 * (gated - 1));  // one dense M x F block
    // The mapping's byte model is what the program moves; the bounds count the gated output.
    workloads::GemmTraffic traffic;
    traffic.epilogue_inputs = add ? 1 : 0;
    traffic.epilogue_ops = ops_per_element;
    CHECK(moved == workloads::map_gemm(chip, fused[0], traffic).bounds.planned_bytes);
    CHECK(moved == low.planned_bytes);
    const auto compulsory =
        (static_cast<std::uint64_t>(M * K + K * 2 * F) + gated * (add ? 2 : 1)) * 2;
    CHECK(low.bounds.compulsory_bytes == compulsory);
    CHECK(low.bounds.lane_ops ==
          static_cast<std::uint64_t>(std::ceil(static_cast<double>(gated) * ops_per_element)));
    CHECK(lane_ops >= low.bounds.lane_ops);
  }
}

TEST_CASE("CMEM hand-off: a layer's output that the next GEMM reads as A skips HBM",
          "[unit][fusion]") {
  const auto chip = chip_with("chip: {}");
  const auto w = workloads::load_workload(config::parse_yaml(
      "file: " + test::source_dir() + "/workloads/gpt3_175b.yaml\n", "experiment.yaml"));
  const auto ls = workloads::fuse_epilogues(w.layers);
  workloads::MappingOptions opt;
  const auto h = workloads::plan_handoffs(chip, ls, opt);
  REQUIRE(h.size() == ls.size());
  // attn_norm -> qkv_proj, attention -> out_proj, mlp_norm -> mlp_up; nothing else.
  std::vector<int> out, in;
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].output_cmem) out.push_back(static_cast<int>(i));
    if (h[i].input_cmem) in.push_back(static_cast<int>(i));
  }
  CHECK(out == std::vector<int>{0, 2, 4});
  CHECK(in == std::vector<int>{1, 3, 5});
  // Off, no CMEM, or an unfused attention (its output comes from a GEMM step): fewer or none.
  opt.cmem_handoff = false;
  CHECK_FALSE(workloads::plan_handoffs(chip, ls, opt)[0].output_cmem);
  opt.cmem_handoff = true;
  CHECK_FALSE(
      workloads::plan_handoffs(chip_with("chip: {cmem: {capacity: 0B}}"), ls, opt)[0].output_cmem);
  opt.attention = workloads::AttentionImpl::kUnfused;
  CHECK_FALSE(workloads::plan_handoffs(chip, ls, opt)[2].output_cmem);
  opt.attention = workloads::AttentionImpl::kFused;

  // The bytes: the producer stores its output to CMEM only, the GEMM reads A from CMEM only.
  const auto bytes = [](const workloads::LoweredLayer& low, int memory, models::OpKind kind) {
    std::uint64_t n = 0;
    for (const auto& o : low.program.ops)
      if (o.kind == kind && o.memory == memory) n += o.bytes;
    return n;
  };
  const std::uint64_t act = 2048ull * 12288 * 2;  // one activation tensor, bf16
  const auto norm_hbm = workloads::lower_layer(chip, ls[0], opt);
  const auto norm_cmem = workloads::lower_layer(chip, ls[0], opt, h[0]);
  CHECK(bytes(norm_hbm, 0, models::OpKind::kStore) == act);
  CHECK(bytes(norm_cmem, 0, models::OpKind::kStore) == 0);
  CHECK(bytes(norm_cmem, 1, models::OpKind::kStore) == act);
  CHECK(norm_cmem.bounds.compulsory_bytes == norm_hbm.bounds.compulsory_bytes - act);
  const auto qkv_hbm = workloads::lower_layer(chip, ls[1], opt);
  const auto qkv_cmem = workloads::lower_layer(chip, ls[1], opt, h[1]);
  CHECK(qkv_cmem.planned_bytes == qkv_hbm.planned_bytes - act);  // A was read once (staged)
  CHECK(bytes(qkv_cmem, 1, models::OpKind::kStore) == 0);        // nothing to stage
  CHECK(qkv_cmem.bounds.compulsory_bytes == qkv_hbm.bounds.compulsory_bytes - act);
  const auto attn = workloads::lower_layer(chip, ls[2], opt, h[2]);
  CHECK(bytes(attn, 1, models::OpKind::kStore) == act);  // O
  CHECK(bytes(attn, 0, models::OpKind::kStore) == 0);
}

// Fusion and hand-offs follow the tensor edges (Layer::inputs), not adjacency: the same layer
// sequence fuses or not depending on who reads what.
TEST_CASE("fusion and hand-offs follow the tensor edges", "[unit][fusion]") {
  const auto load = [](const std::string& layers) {
    return workloads::load_workload(config::parse_yaml("layers:\n" + layers, "experiment.yaml"),
                                    "workload");
  };
  const std::string g = "  - {name: up, m: 64, n: 256, k: 128}\n";
  const std::string act = "  - {name: act, op: gelu, rows: 64, cols: 256";
  // Default edges (each layer reads the one before it): the GELU fuses.
  CHECK(names(workloads::fuse_epilogues(load(g + act + "}\n").layers)) ==
        std::vector<std::string>{"up+act"});
  // The GELU reads the workload's input, not the GEMM: nothing to fuse.
  CHECK(names(workloads::fuse_epilogues(load(g + act + ", inputs: input}\n").layers)) ==
        std::vector<std::string>{"up", "act"});
  // A later layer also reads the GEMM's output: it must be stored, so the GELU stays apart; the
  // later layer keeps reading 'up' by name.
  const std::string down = "  - {name: down, m: 64, n: 128, k: 256, inputs: [act, up]}\n";
  const auto kept = workloads::fuse_epilogues(load(g + act + "}\n" + down).layers);
  CHECK(names(kept) == std::vector<std::string>{"up", "act", "down"});
  CHECK(kept[2].inputs == std::vector<std::string>{"act", "up"});
  // A residual add names its two tensors: it fuses, and readers of it are renamed.
  const std::string res =
      "  - {name: res, op: add, rows: 64, cols: 256, inputs: [up, input]}\n"
      "  - {name: next, m: 64, n: 64, k: 256, inputs: [input, res]}\n";
  const auto fused = workloads::fuse_epilogues(load(g + res).layers);
  CHECK(names(fused) == std::vector<std::string>{"up+res", "next"});
  CHECK(fused[1].inputs == std::vector<std::string>{"input", "up+res"});
  REQUIRE(fused[0].epilogue.size() == 1);
  CHECK(fused[0].epilogue[0].extra_inputs == 1);

  // CMEM hand-off: a norm read by the next GEMM only hands over; read by two GEMMs, it is stored.
  const auto chip = chip_with("chip: {}");
  const std::string norm = "  - {name: norm, op: layernorm, rows: 64, cols: 128}\n";
  const std::string q = "  - {name: q, m: 64, n: 128, k: 128}\n";
  const std::string k = "  - {name: k, m: 64, n: 128, k: 128, inputs: norm}\n";
  workloads::MappingOptions opt;
  CHECK(workloads::plan_handoffs(chip, load(norm + q).layers, opt)[0].output_cmem);
  CHECK_FALSE(workloads::plan_handoffs(chip, load(norm + q + k).layers, opt)[0].output_cmem);

  // A name that is no earlier layer is an error at its place in the file.
  try {
    load(g + act + ", inputs: [upp]}\n");
    FAIL("an input naming no layer was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("layers[1].inputs[0]") != std::string::npos);
    CHECK(what.find("did you mean 'up'") != std::string::npos);
  }
  CHECK_THROWS_AS(load(g + "  - {name: x, op: gelu, rows: 64, cols: 256, inputs: x}\n"),
                  ConfigError);  // not itself
}

TEST_CASE("vector.ops sets the lane operations of vector layers and fused epilogues",
          "[unit][mapping]") {
  // The preset's counts (softmax 5, GELU 8) and doubled ones: the lowered vector ops and the
  // layer's vector bound follow them.
  const auto base = chip_with("chip: {}");
  const auto twice = chip_with("chip: {vector: {ops: {softmax: 10, gelu: 16}}}");
  for (const LayerOp op : {LayerOp::kSoftmax, LayerOp::kGelu}) {
    const auto l = vec("v", op, 256, 1024);
    const auto a = workloads::lower_layer(base, l, {}), b = workloads::lower_layer(twice, l, {});
    const double per = op == LayerOp::kSoftmax ? 5 : 8;
    CHECK(a.bounds.lane_ops == static_cast<std::uint64_t>(256 * 1024 * per));
    CHECK(b.bounds.lane_ops == 2 * a.bounds.lane_ops);
    std::uint64_t la = 0, lb = 0;
    for (const auto& o : a.program.ops) la += o.kind == models::OpKind::kVector ? o.lane_ops : 0;
    for (const auto& o : b.program.ops) lb += o.kind == models::OpKind::kVector ? o.lane_ops : 0;
    CHECK(la == a.bounds.lane_ops);
    CHECK(lb == b.bounds.lane_ops);
  }
  // A GELU fused into a GEMM's epilogue costs its vector.ops.gelu per stored element.
  const auto fused =
      workloads::fuse_epilogues({gemm("g", 64, 256, 128), vec("a", LayerOp::kGelu, 64, 256)});
  REQUIRE(fused.size() == 1);
  const auto fa = workloads::lower_layer(base, fused[0], {});
  const auto fb = workloads::lower_layer(twice, fused[0], {});
  CHECK(fb.bounds.lane_ops == 2 * fa.bounds.lane_ops);
}
