// TPU v1's weight path (MxuConfig::weight_fifo) and LSTM layers, as the compiler lowers and
// links them: through a FIFO of D tiles every matmul waits for its own rows x cols weight tile
// and nothing else of the weights, and load i waits for the matmul that read tile i - D, also
// across layer instances; without a FIFO the weights stay one VMEM tile per k step. An LSTM's
// time step t + 1 waits for step t, whose cell runs on the vector unit after its gate GEMM.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "tests/support/tiny_chip.h"
#include "workloads/frontends/yaml_workload.h"
#include "workloads/lowering/compile.h"

using namespace systole;
using models::Operand;
using models::OpKind;
using workloads::LayerOp;

namespace {

models::TpuChipConfig fifo_chip(int depth) {
  return test::chip_with(
      "chip: {tensor_cores: 1, mxus_per_core: 1, mxu: {rows: 16, cols: 16, weight_fifo: " +
      std::to_string(depth) + "}, vmem: {capacity: 1MiB}, dma: {engines: 2}}");
}

workloads::MappingOptions on_chip() {
  workloads::MappingOptions opt;
  opt.activations_on_chip = true;
  return opt;
}

bool has(const std::vector<std::uint32_t>& v, std::uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST_CASE("weight FIFO: each matmul waits for its own tile, each load for its slot",
          "[unit][fifo]") {
  for (const int depth : {1, 3, 4}) {
    INFO("depth " << depth);
    const auto chip = fifo_chip(depth);
    workloads::Layer l = test::gemm(20, 40, 50);  // 4 row blocks (16, 16, 16, 2) x 3 column blocks
    l.dtype = DataType::kInt8;
    l.repeat = 3;
    const auto prog = workloads::link(chip, workloads::compile(chip, {l}, on_chip()));
    std::vector<std::uint32_t> loads, matmuls;
    for (std::uint32_t i = 0; i < prog.ops.size(); ++i) {
      const auto& op = prog.ops[i];
      if (op.kind == OpKind::kLoad && op.operand == Operand::kWeight) loads.push_back(i);
      if (op.kind == OpKind::kMatmul) matmuls.push_back(i);
    }
    REQUIRE(loads.size() == 3 * 12);
    REQUIRE(matmuls.size() == loads.size());
    std::uint64_t bytes = 0;
    for (size_t i = 0; i < loads.size(); ++i) {
      const auto& mm = prog.ops[matmuls[i]];
      const auto& ld = prog.ops[loads[i]];
      CHECK(mm.k <= 16);
      CHECK(mm.n <= 16);
      CHECK(ld.bytes == std::uint64_t{mm.k} * mm.n);  // exactly its tile (int8)
      bytes += ld.bytes;
      // Its own tile and no other weight load.
      for (const auto d : mm.deps)
        if (prog.ops[d].kind == OpKind::kLoad) CHECK(d == loads[i]);
      CHECK(has(mm.deps, loads[i]));
      // The slot: the reader of the tile `depth` loads before (in the instance before, too).
      if (i >= static_cast<size_t>(depth)) {
        CHECK(has(ld.deps, matmuls[i - static_cast<size_t>(depth)]));
      } else {
        CHECK(ld.deps.empty());
      }
      // An instance's first loads prefetch at most one layer ahead: they wait for the instance
      // before the previous one (after counts instances from 1).
      if (ld.instance >= 1 && i % 12 < static_cast<size_t>(depth))
        CHECK(ld.after == ld.instance - 1);
    }
    CHECK(bytes == 3u * 40 * 50);
  }
}

TEST_CASE("weight FIFO with tiled weights: each tile one range, B covered once", "[unit][fifo]") {
  const auto chip = fifo_chip(4);
  workloads::Layer l = test::gemm(20, 40, 50);  // K 50 = 16+16+16+2 rows, N 40 = 16+16+8 cols
  l.dtype = DataType::kInt8;
  for (const bool tiled : {false, true}) {
    INFO("tiled " << tiled);
    auto opt = on_chip();
    opt.weights_tiled = tiled;
    const auto prog = workloads::link(chip, workloads::compile(chip, {l}, opt));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [begin, end) of each tile
    std::uint64_t lowest = ~0ull;
    for (const auto& op : prog.ops) {
      if (op.kind != OpKind::kLoad || op.operand != Operand::kWeight) continue;
      CHECK(op.mem.bytes() == op.bytes);
      CHECK(op.mem.contiguous() == (tiled || op.mem.rows() == 1));
      lowest = std::min(lowest, op.mem.addr);
      if (tiled) ranges.emplace_back(op.mem.addr, op.mem.addr + op.mem.bytes());
    }
    if (!tiled) continue;
    // The 12 tiles tile B's 2,000 bytes without a gap or an overlap (edge tiles unpadded).
    REQUIRE(ranges.size() == 12);
    std::sort(ranges.begin(), ranges.end());
    CHECK(ranges.front().first == lowest);
    for (size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i].first == ranges[i - 1].second);
    CHECK(ranges.back().second - ranges.front().first == 50u * 40);
  }
}

TEST_CASE("weight FIFO 0: the weights stay VMEM tiles, one load per k step", "[unit][fifo]") {
  const auto chip = fifo_chip(0);
  workloads::Layer l = test::gemm(20, 40, 50);
  l.dtype = DataType::kInt8;
  const auto prog = workloads::link(chip, workloads::compile(chip, {l}, on_chip()));
  size_t loads = 0, matmuls = 0;
  for (const auto& op : prog.ops) {
    loads += op.kind == OpKind::kLoad && op.operand == Operand::kWeight;
    matmuls += op.kind == OpKind::kMatmul;
  }
  CHECK(loads == 1);  // the whole 50 x 40 tile fits VMEM
  CHECK(matmuls == 1);
  CHECK(prog.fifos.empty());
}

TEST_CASE("lstm: the cell on the vector unit after the gates, step t + 1 after step t",
          "[unit][lstm]") {
  const auto w = workloads::load_workload(
      config::parse_yaml("layers:\n  - {name: cell, op: lstm, batch: 8, input: 32, hidden: 16, "
                         "steps: 3, dtype: int8}\n",
                         "experiment.yaml"),
      "workload");
  REQUIRE(w.layers.size() == 1);
  const auto& l = w.layers[0];
  CHECK(l.op == LayerOp::kLstm);
  CHECK(l.repeat == 3);  // one instance per time step
  CHECK(l.macs() == 8u * (32 + 16) * 64);
  for (const int depth : {0, 4}) {
    INFO("weight_fifo " << depth);
    const auto chip = fifo_chip(depth);
    const auto compiled = workloads::compile(chip, w.layers, on_chip());
    REQUIRE(compiled.layers[0].bounds.lane_ops == 8u * 16 * 19);
    const auto prog = workloads::link(chip, compiled);
    std::vector<std::uint64_t> lane_ops(3, 0);
    std::vector<std::uint32_t> last_matmul(3, 0);
    for (std::uint32_t i = 0; i < prog.ops.size(); ++i) {
      const auto& op = prog.ops[i];
      if (op.kind == OpKind::kMatmul) {
        last_matmul[op.instance] = i;
        // The gates of step t + 1 read h_t: they wait for the whole of step t.
        if (op.instance > 0) CHECK(op.after == op.instance);
      }
      if (op.kind == OpKind::kVector) {
        lane_ops[op.instance] += op.lane_ops;
        CHECK(op.bytes > 0);
        // The cell reads the gates: it waits for the step's last matmul.
        CHECK(has(op.deps, last_matmul[op.instance]));
      }
      // The activations stay on chip: only weights move.
      if (op.kind == OpKind::kLoad || op.kind == OpKind::kStore)
        CHECK(op.operand == Operand::kWeight);
    }
    CHECK(lane_ops == std::vector<std::uint64_t>(3, 8u * 16 * 19));
  }
}
