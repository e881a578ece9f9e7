// The host link (TpuChipConfig::host, workloads/lowering/host_io.h): which layer instances read
// the workload's input from host memory and which write its outputs back, and how the linker
// makes them DMA ops on the host engine that only the input's readers wait for. Without a host
// link the linked program is the one it was before (no host unit, memory or op).
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/support/tiny_chip.h"
#include "workloads/lowering/compile.h"

using namespace systole;
using models::Operand;
using models::OpKind;
using workloads::LayerOp;

namespace {

const char* kFifoChip =
    "chip: {tensor_cores: 1, mxus_per_core: 1, mxu: {rows: 16, cols: 16, weight_fifo: 2}, "
    "vmem: {capacity: 1MiB}, dma: {engines: 1}";

models::TpuChipConfig chip(bool host) {
  return test::chip_with(std::string(kFifoChip) +
                         (host ? ", host: {bandwidth: 14GB/s, latency: 1us}}" : "}"));
}

workloads::MappingOptions on_chip() {
  workloads::MappingOptions opt;
  opt.activations_on_chip = true;
  return opt;
}

workloads::Layer int8_gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t repeat) {
  workloads::Layer l = test::gemm(m, n, k);
  l.dtype = DataType::kInt8;
  l.repeat = repeat;
  return l;
}

workloads::Layer lstm(std::int64_t batch, std::int64_t input, std::int64_t hidden,
                      std::int64_t steps, std::int64_t stacked) {
  workloads::Layer l;
  l.name = "lstm";
  l.op = LayerOp::kLstm;
  l.dtype = DataType::kInt8;
  l.m = batch;
  l.k = input + hidden;
  l.n = 4 * hidden;
  l.steps = steps;
  l.repeat = steps * stacked;
  return l;
}

std::vector<std::uint32_t> host_ops(const models::Program& p, OpKind kind) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].operand == Operand::kHost && p.ops[i].kind == kind) out.push_back(i);
  return out;
}

bool depends_on(const models::Op& op, std::uint32_t d) {
  return std::find(op.deps.begin(), op.deps.end(), d) != op.deps.end();
}

}  // namespace

TEST_CASE("host transfers: an MLP reads its input once and writes its last output",
          "[unit][host]") {
  // 168 x 1118 int8 in (MLP1's), 168 x 500 out of the last of two layers of 3 repeats.
  auto a = int8_gemm(168, 1118, 1118, 3);
  auto b = int8_gemm(168, 500, 1118, 2);
  b.name = "h";
  const auto t = workloads::plan_host_transfers({a, b});
  REQUIRE(t.size() == 2);
  REQUIRE(t[0].size() == 3);
  REQUIRE(t[1].size() == 2);
  CHECK(t[0][0].input_step == 0);
  CHECK(t[0][0].input_bytes == 168u * 1118u);
  CHECK(t[0][1].input_step == -1);  // later repeats read the instance before them
  CHECK(t[1][0].input_step == -1);
  for (const auto& l : t)
    for (size_t r = 0; r < l.size(); ++r)
      CHECK(l[r].output_bytes == (&l == &t[1] && r == 1 ? 168u * 500u : 0u));
}

TEST_CASE("host transfers: an LSTM reads x_t at every step of its first stacked layer",
          "[unit][host]") {
  const auto t = workloads::plan_host_transfers({lstm(64, 1024, 512, 4, 3)});
  REQUIRE(t[0].size() == 12);
  for (size_t r = 0; r < 12; ++r) {
    INFO("instance " << r);
    CHECK(t[0][r].input_step == (r < 4 ? static_cast<std::int64_t>(r) : -1));
    CHECK(t[0][r].input_bytes == (r < 4 ? 64u * 1024u : 0u));
    // h_t of every step of the last stacked layer leaves after its last step.
    CHECK(t[0][r].output_bytes == (r == 11 ? 4u * 64u * 512u : 0u));
  }
}

TEST_CASE("host link: the input's readers wait for its load, the weights do not", "[unit][host]") {
  const auto layers = std::vector<workloads::Layer>{int8_gemm(40, 48, 32, 2)};
  const auto with = chip(true), without = chip(false);
  const auto p = workloads::link(with, workloads::compile(with, layers, on_chip()));
  const auto q = workloads::link(without, workloads::compile(without, layers, on_chip()));
  // Without a host link: no host unit, memory or op, and the same ops otherwise.
  CHECK(std::find(q.units.begin(), q.units.end(), "chip0.host_dma") == q.units.end());
  CHECK(std::find(q.memories.begin(), q.memories.end(), "chip0.host") == q.memories.end());
  CHECK(host_ops(q, OpKind::kLoad).empty());
  CHECK(host_ops(q, OpKind::kStore).empty());
  REQUIRE(p.ops.size() == q.ops.size() + 2);

  const auto in = host_ops(p, OpKind::kLoad), out = host_ops(p, OpKind::kStore);
  REQUIRE(in.size() == 1);
  REQUIRE(out.size() == 1);
  const auto& load = p.ops[in[0]];
  CHECK(p.units.at(load.unit) == "chip0.host_dma");
  CHECK(p.memories.at(load.memory) == "chip0.host");
  CHECK(load.bytes == 40u * 32u);
  CHECK(load.deps.empty());
  CHECK(load.instance == 0);
  const auto& store = p.ops[out[0]];
  CHECK(store.bytes == 40u * 48u);
  CHECK(store.instance == 1);
  CHECK(out[0] == p.ops.size() - 1);
  int readers = 0;
  for (std::uint32_t i = 0; i < p.ops.size(); ++i) {
    const auto& op = p.ops[i];
    if (op.operand == Operand::kHost) continue;
    if (op.instance == 0 && op.kind == OpKind::kMatmul) {  // reads the input where it arrives
      CHECK(depends_on(op, in[0]));
      ++readers;
    } else {
      CHECK_FALSE(depends_on(op, in[0]));  // weights and later instances do not wait for it
    }
  }
  CHECK(readers > 0);
  // The store waits for the last instance's sinks: every matmul of it precedes one of them.
  CHECK_FALSE(store.deps.empty());
  for (const auto d : store.deps) CHECK(p.ops[d].instance == 1);
}
