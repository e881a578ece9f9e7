// SystemC testbenches of the TPU chip: golden cycle counts with their derivations.
// ctest runs each TEST_CASE in its own process (SystemC allows one elaboration per process).
#include <catch2/catch.hpp>

#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "sim/config/node.h"
#include "tests/support/tiny_chip.h"
#include "workloads/lowering/tpu_gemm_lowering.h"

using namespace systole;

using test::gemm;
using test::tiny_chip;

TEST_CASE("tpu_chip golden: one-step GEMM 8x4x4 takes 178 cycles", "[sc][golden]") {
  const auto chip = tiny_chip();
  models::TpuChipSystem sys({chip, {}});
  workloads::Workload w;
  w.layers = {gemm(8, 4, 4)};
  const auto r = sys.run(w, {});
  // Program: load A (8x4 bf16 = 64 B), load B (4x4 = 32 B), matmul, store C (8x4 = 64 B).
  //   load A   0 ..  64   (64 B at 1 B/cycle)
  //   load B  64 ..  96
  //   matmul: operands ready at 96; the 4x4 weight tile shifts in for R = 4 cycles (nothing
  //           to overlap it with) -> A rows stream 100..107 (1 fold, T = M = 8); the last
  //           row reaches the bottom PE row R - 1 = 3 cycles after entering and the last
  //           column n - 1 = 3 cycles after that (113) -> done at 114 = f + T + R + n - 2
  //           (models/mxu/README.md; the PE-level reference gives the same)
  //   store  114 .. 178   (64 B)
  REQUIRE(r.layers.get_int(0, "cycles") == 178);
  const auto& mxu = r.units.at(0);
  CHECK(mxu.get_int(0, "busy_cycles") == 8);
  CHECK(mxu.get_int(0, "load_cycles") == 4);
  CHECK(mxu.get_int(0, "stall_cycles") == 96);  // waited for its operands from cycle 0 to 96
  CHECK(mxu.get_int(0, "stall_input_cycles") == 96);
  CHECK(mxu.get_int(0, "fill_drain_cycles") == 6);  // 108..114: the last rows drain
  CHECK(mxu.get_int(0, "idle_cycles") == 64);       // the store
  CHECK(mxu.get_int(0, "macs") == 8 * 4 * 4);
  CHECK(mxu.get_int(0, "folds") == 1);
  const auto& mem = r.units.at(2);
  CHECK(mem.get_int(0, "bytes_read") == 96);
  CHECK(mem.get_int(0, "bytes_written") == 64);
  CHECK(mem.get_int(0, "busy_cycles") == 160);
}

TEST_CASE("tpu_chip golden: two k steps, double-buffered, take 274 cycles", "[sc][golden]") {
  const auto chip = tiny_chip();
  const auto layer = gemm(8, 4, 8);
  workloads::GemmMapping mp;
  mp.rows = 8;
  mp.split_n = true;
  mp.cores_used = 1;
  mp.core_extent = 4;
  mp.tm = 8;
  mp.tn = 4;
  mp.tk = 4;  // two k steps
  const models::Program prog = workloads::lower_gemm(chip, layer, mp);
  // Ops: A0, B0, mm0, A1, B1, mm1, store — the store is emitted last.
  REQUIRE(prog.ops.size() == 7);
  stats::Trace trace;
  trace.enabled = true;
  models::TpuChipModule top("chip0", chip, &trace);
  const auto t = top.run(prog, 1);
  // One DMA engine, in order: A0 0..64, B0 64..96, A1 96..160, B1 160..192.
  // mm0: operands at 96, weight shift 96..99 -> streams 100..107, done 100 + 8 + 4 + 4 - 2
  //      = 114 (f + T + R + n - 2).
  // mm1: operands at 192 (slot 1 was free, so its loads did not wait), weight shift
  //      192..195 -> streams 196..203, done 210.  store: 210..274 (64 B).
  CHECK(t == sc_core::sc_time(274, sc_core::SC_NS));
  REQUIRE(trace.events.size() == 7);
  // Trace times are picoseconds inside the module (the system converts them to cycles).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> mm;
  for (const auto& e : trace.events)
    if (e.kind == static_cast<std::uint16_t>(models::OpKind::kMatmul))
      mm.emplace_back(e.begin, e.end);
  REQUIRE(mm.size() == 2);
  CHECK(mm[0] == std::make_pair<std::uint64_t, std::uint64_t>(96000, 114000));
  CHECK(mm[1] == std::make_pair<std::uint64_t, std::uint64_t>(192000, 210000));
}

TEST_CASE("tpu_chip: DMA engines keep HBM busy while the MXUs compute", "[sc]") {
  // A compute-bound GEMM on the default TPU v4 chip: the time is within 5% of the compute
  // bound, so loads overlap with compute (double buffering works end to end).
  const auto chip = models::TpuSystemConfig::schema().load(config::Node(), "system").chip;
  models::TpuChipSystem sys({chip, {}});
  workloads::Workload w;
  w.layers = {gemm(4096, 4096, 4096)};
  const auto r = sys.run(w, {});
  const double compute = 4096.0 * 4096 * 4096 / static_cast<double>(chip.peak_macs_per_cycle());
  const double cycles = static_cast<double>(r.layers.get_int(0, "cycles"));
  CHECK(cycles >= compute);
  CHECK(cycles <= 1.05 * compute);
}

// A program addresses units by instance path; a netlist refuses one naming a device it is not.
TEST_CASE("tpu_chip: a program for another device's units is refused, by path", "[sc]") {
  const auto chip = test::tiny_chip(1, "{rows: 4, cols: 4}", "{capacity: 4KiB}");
  models::Program prog;
  chip.address(prog, "chip1");
  models::Op op;
  op.kind = models::OpKind::kLoad;
  op.unit = chip.dma_unit(0, 0);
  op.bytes = 64;
  prog.ops = {op};
  models::TpuChipModule top("chip0", chip, nullptr);
  try {
    top.run(prog, 1);
    FAIL("a program for chip1 ran on chip0");
  } catch (const SimError& e) {
    CHECK(std::string(e.what()).find("'chip1.core0.mxu0'") != std::string::npos);
    CHECK(std::string(e.what()).find("'chip0'") != std::string::npos);
  }
}
