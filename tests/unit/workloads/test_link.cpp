// The linker (workloads/lowering/compile.h): on random sequences of GEMM, vector and attention
// layers with repeats, every instance after the first reads its input only after the instance
// before it has finished; with layer_overlap the first weight loads into each VMEM buffer wait
// only for the previous instance's last users of that VMEM (and for the instance before that),
// without it every op with no dependency waits for the previous instance. Dependencies always
// point backwards, within an instance or into the one before it.
#include <catch2/catch.hpp>

#include <random>

#include "tests/support/tiny_chip.h"
#include "workloads/lowering/compile.h"

using namespace systole;
using models::Operand;
using models::OpKind;
using workloads::LayerOp;

namespace {

workloads::Layer random_layer(std::mt19937_64& rng, int i) {
  std::uniform_int_distribution<std::int64_t> dim(1, 300), pick(0, 5), rep(1, 3);
  workloads::Layer l = test::gemm(dim(rng), dim(rng), dim(rng));
  l.name = "l" + std::to_string(i);
  switch (pick(rng)) {
    case 0:
      l.op = LayerOp::kLayerNorm;
      l.vec = {dim(rng), dim(rng)};
      break;
    case 1:
      l.op = LayerOp::kAttention;
      l.attn = {1, 2, 1, dim(rng) % 64 + 1, dim(rng) % 64 + 64, 32, i % 2 == 0};
      break;
    default:
      break;
  }
  l.repeat = rep(rng);
  return l;
}

}  // namespace

TEST_CASE("the linker orders layer instances by their data and VMEM buffers only", "[unit][link]") {
  std::mt19937_64 rng(20261123);
  const auto chip = test::chip_with(
      "chip: {tensor_cores: 2, mxus_per_core: 2, mxu: {rows: 16, cols: 16}, vmem: {capacity: "
      "256KiB}, dma: {engines: 2}}");
  int prefetching = 0;
  for (int c = 0; c < 60; ++c) {
    std::vector<workloads::Layer> layers;
    const int n = 2 + c % 4;
    for (int i = 0; i < n; ++i) layers.push_back(random_layer(rng, i));
    for (const bool overlap : {true, false}) {
      workloads::MappingOptions opt;
      opt.layer_overlap = overlap;
      opt.attention = c % 2 ? workloads::AttentionImpl::kFused : workloads::AttentionImpl::kUnfused;
      const auto compiled = workloads::compile(chip, layers, opt);
      std::vector<std::uint32_t> first;
      const auto prog = workloads::link(chip, compiled, &first);
      INFO("case " << c << " overlap " << overlap);
      REQUIRE(first.size() == layers.size() + 1);
      std::uint32_t instances = 0;
      for (const auto& l : layers) instances += static_cast<std::uint32_t>(l.repeat);
      REQUIRE(prog.instances == instances);
      std::vector<char> waits(instances, 0);
      std::vector<std::uint32_t> begin(instances + 1, 0);
      for (std::uint32_t i = 0; i < prog.ops.size(); ++i)
        if (i == 0 || prog.ops[i].instance != prog.ops[i - 1].instance)
          begin[prog.ops[i].instance] = i;
      for (std::uint32_t i = 0; i < prog.ops.size(); ++i) {
        const auto& op = prog.ops[i];
        REQUIRE(op.layer < layers.size());
        REQUIRE(i >= first[op.layer]);
        REQUIRE(i < first[op.layer + 1]);
        for (auto d : op.deps) {
          REQUIRE(d < i);
          REQUIRE(prog.ops[d].instance + 1 >= op.instance);  // this instance or the one before
        }
        if (op.instance == 0) {
          REQUIRE(op.after == 0);
          continue;
        }
        const bool cross = !op.deps.empty() && prog.ops[op.deps.front()].instance < op.instance;
        const bool root = op.deps.empty() || cross;
        if (op.operand == Operand::kInput && overlap) REQUIRE(op.after == op.instance);
        if (op.after == op.instance) waits[op.instance] = 1;
        if (!overlap && root) REQUIRE(op.after == op.instance);
        if (cross) {  // a weight prefetch: its VMEM's last users in the instance before
          REQUIRE(overlap);
          REQUIRE(op.kind == OpKind::kLoad);
          REQUIRE(op.operand == Operand::kWeight);
          REQUIRE(op.after + 1 == op.instance);
          for (auto d : op.deps) {
            REQUIRE(prog.ops[d].instance + 1 == op.instance);
            REQUIRE(prog.ops[d].unit / chip.units_per_core() == op.unit / chip.units_per_core());
          }
          ++prefetching;
        }
      }
      // Each instance reads its input after the one before it: by induction, instance i begins
      // reading only after every earlier instance has finished.
      for (std::uint32_t i = 1; i < instances; ++i) CHECK(waits[i]);
    }
  }
  CHECK(prefetching > 100);  // the random cases do prefetch weights across layers
}

// Ops name units and memories by instance path; the linker interns each part's paths into the
// whole program's tables, so parts lowered for different devices keep their own units.
TEST_CASE("the linker interns units and memories by instance path", "[unit][link]") {
  const auto chip = test::chip_with("chip: {tensor_cores: 2, mxus_per_core: 2}");
  models::Program a, b;
  chip.address(a, "chip0");
  chip.address(b, "chip1");
  REQUIRE(a.units.size() == static_cast<size_t>(chip.units()));
  CHECK(a.units[chip.mxu_unit(1, 1)] == "chip0.core1.mxu1");
  CHECK(a.units[chip.vector_unit(0)] == "chip0.core0.vpu");
  CHECK(a.memories == std::vector<std::string>{"chip0.hbm", "chip0.cmem"});
  models::Op mm;
  mm.kind = OpKind::kMatmul;
  mm.unit = chip.mxu_unit(1, 0);
  models::Op ld;
  ld.kind = OpKind::kLoad;
  ld.unit = chip.dma_unit(0, 1);
  ld.memory = models::TpuChipConfig::kCmem;
  a.ops = {ld, mm};
  b.ops = {ld, mm};
  b.ops[1].deps = {0};
  models::Program whole;
  whole.instances = 0;
  workloads::link_instance(whole, a, 0, chip, true);
  workloads::link_instance(whole, b, 1, chip, true);
  workloads::link_instance(whole, a, 2, chip, true);
  REQUIRE(whole.units.size() == 2 * a.units.size());
  REQUIRE(whole.memories.size() == 4);
  REQUIRE(whole.ops.size() == 6);
  CHECK(whole.units[whole.ops[0].unit] == "chip0.core0.dma1");
  CHECK(whole.units[whole.ops[1].unit] == "chip0.core1.mxu0");
  CHECK(whole.units[whole.ops[2].unit] == "chip1.core0.dma1");
  CHECK(whole.units[whole.ops[3].unit] == "chip1.core1.mxu0");
  CHECK(whole.memories[whole.ops[2].memory] == "chip1.cmem");
  CHECK(whole.units[whole.ops[4].unit] == "chip0.core0.dma1");
  CHECK(whole.memories[whole.ops[4].memory] == "chip0.cmem");
  CHECK(whole.ops[3].deps == std::vector<std::uint32_t>{2});
}
