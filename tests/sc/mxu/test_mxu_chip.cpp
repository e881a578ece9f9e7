// The MXU inside the TPU chip: golden cycles of each dataflow, MXUs contending for their core's
// VMEM port, output stalls, per-MXU statistics that classify every cycle, and the TPU v1-like
// preset. Derivations in comments; ctest runs each TEST_CASE in its own process.
#include <catch2/catch.hpp>

#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "tests/support/tiny_chip.h"

using namespace systole;

namespace {

using test::gemm;
using test::tiny_chip;

/// Every cycle of every MXU row falls in exactly one class.
void check_partition(const stats::Table& t, std::int64_t cycles) {
  for (size_t r = 0; r < t.rows().size(); ++r) {
    std::int64_t sum = 0;
    for (const char* c : {"busy_cycles", "load_cycles", "stall_input_cycles", "stall_output_cycles",
                          "fill_drain_cycles", "idle_cycles"})
      sum += t.get_int(r, c);
    CHECK(sum == cycles);
    CHECK(t.get_int(r, "stall_cycles") ==
          t.get_int(r, "stall_input_cycles") + t.get_int(r, "stall_output_cycles"));
  }
}

}  // namespace

TEST_CASE("mxu golden: os GEMM 8x4x2 on the chip", "[sc][mxu][golden]") {
  const auto chip = tiny_chip(1, "{rows: 4, cols: 4, dataflow: os}");
  models::TpuChipSystem sys({chip, {}});
  workloads::Workload w;
  w.layers = {gemm(8, 4, 2)};
  const auto r = sys.run(w, {});
  // Program: load A (8x2 bf16 = 32 B) 0..32, load B (2x4 = 16 B) 32..48, matmul, store C
  // (8x4 = 64 B).
  // matmul, os: outputs 8x4 -> two row folds of 4x4; T = k = 2 < R = 4. Fold 0: steps 48, 49.
  //   Fold 1: step 0 at 50; its last step must wait until fold 0's output registers are
  //   released, R = 4 cycles after fold 0's last step: 53. Port free at 54.
  //   Release of fold 1 at 57 (column j at 57 + j); column 3 drains rows 3..0 at 60..63:
  //   done at 64 = 53 + 2R + n - 1.
  // store 64..128.
  REQUIRE(r.layers.get_int(0, "cycles") == 128);
  const auto& mxu = r.units.at(0);
  CHECK(mxu.get_int(0, "busy_cycles") == 4);          // 2 folds x T
  CHECK(mxu.get_int(0, "stall_output_cycles") == 2);  // 50..53 minus step 50: 51, 52
  CHECK(mxu.get_int(0, "stall_input_cycles") == 48);  // operands arrive at 48
  CHECK(mxu.get_int(0, "load_cycles") == 0);          // nothing to load in os
  CHECK(mxu.get_int(0, "fill_drain_cycles") == 10);   // 54..64
  CHECK(mxu.get_int(0, "idle_cycles") == 64);         // the store
  check_partition(mxu, 128);
}

TEST_CASE("mxu golden: is GEMM 8x4x2 on the chip", "[sc][mxu][golden]") {
  const auto chip = tiny_chip(1, "{rows: 4, cols: 4, dataflow: is}");
  models::TpuChipSystem sys({chip, {}});
  workloads::Workload w;
  w.layers = {gemm(8, 4, 2)};
  const auto r = sys.run(w, {});
  // Loads as above, operands at 48. is: A^T stays (k = 2 rows x m = 8 columns -> two column
  // folds of 4), W's n = 4 columns stream (T = 4 = R). Fold 0: tile 48..51, streams 52..55;
  // fold 1: tile 52..55, streams 56..59. Fold 1's last result leaves column 3 at
  // 59 + 3 + 3 = 65: done at 66; store 66..130.
  REQUIRE(r.layers.get_int(0, "cycles") == 130);
  const auto& mxu = r.units.at(0);
  CHECK(mxu.get_int(0, "busy_cycles") == 8);
  CHECK(mxu.get_int(0, "load_cycles") == 4);
  CHECK(mxu.get_int(0, "fill_drain_cycles") == 6);  // 60..66
  CHECK(mxu.get_int(0, "folds") == 2);
  CHECK(mxu.get_number(0, "mapping_efficiency") == Approx(0.5));  // 2 of 4 rows used
  check_partition(mxu, 130);
}

TEST_CASE("mxu: two MXUs contend for their core's VMEM port", "[sc][mxu][golden]") {
  // 2 MXUs per core, VMEM port at 4 B/cycle. GEMM 8x8x4: the n tile of 8 splits into two
  // slices of 4, one per MXU; A (8x4 bf16 = 64 B) loads 0..64, B (4x8 = 64 B) 64..128.
  // Each matmul 8x4x4 (ws) reads A once and its W slice: (32 + 16) x 2 B = 96 B = 24 cycles of
  // the port. Alone, each would load its tile 128..131, stream 132..139 and finish at 146.
  // Sharing the port first come first served: the first MXU's bytes arrive by 152, the
  // second's by 176, so their streams end 12 and 36 cycles late (stalled on input) and they
  // finish at 158 and 182. Store C (8x8x2 = 128 B) 182..310.
  const auto chip = tiny_chip(2, "{rows: 4, cols: 4}", "{capacity: 1KiB, bandwidth: 4GB/s}");
  models::TpuChipSystem sys({chip, {}});
  workloads::Workload w;
  w.layers = {gemm(8, 8, 4)};
  const auto r = sys.run(w, {});
  REQUIRE(r.layers.get_int(0, "cycles") == 310);
  const auto& mxu = r.units.at(0);
  REQUIRE(mxu.rows().size() == 2);
  CHECK(mxu.get_int(0, "stall_input_cycles") + mxu.get_int(1, "stall_input_cycles") ==
        2 * 128 + 12 + 36);
  CHECK(mxu.get_int(0, "busy_cycles") == 8);
  CHECK(mxu.get_int(1, "busy_cycles") == 8);
  CHECK(mxu.get_int(0, "bytes") == 96);
  check_partition(mxu, 310);
}

TEST_CASE("mxu: an op waiting only for a store stalls on output", "[sc][mxu][golden]") {
  const auto chip = tiny_chip(1, "{rows: 4, cols: 4}");
  models::Program prog;
  const auto op = [&](models::OpKind k, std::uint16_t unit, std::uint64_t bytes,
                      std::vector<std::uint32_t> deps) {
    models::Op o;
    o.kind = k;
    o.unit = unit;
    o.bytes = bytes;
    o.deps = std::move(deps);
    if (k == models::OpKind::kMatmul) {
      o.m = 8;
      o.k = 4;
      o.n = 4;
    }
    prog.ops.push_back(o);
  };
  chip.address(prog);
  const std::uint16_t mxu = chip.mxu_unit(0, 0), dma = chip.dma_unit(0, 0);
  op(models::OpKind::kLoad, dma, 64, {});        // 0: operands, 0..64
  op(models::OpKind::kStore, dma, 200, {});      // 1: frees the accumulators, 64..264
  op(models::OpKind::kMatmul, mxu, 48, {0});     // 2
  op(models::OpKind::kMatmul, mxu, 48, {0, 1});  // 3
  models::TpuChipModule top("chip0", chip, nullptr);
  const auto t = top.run(prog, 1);
  // Matmul 2: operands at 64, tile 64..67, streams 68..75, done at 82.
  // Matmul 3 is taken at 76 with its operands ready and the store pending: it waits for the
  // store until 264 (76..82 the array drains matmul 2, 82..264 is an output stall), loads its
  // tile 264..267, streams 268..275, done at 282.
  CHECK(t == sc_core::sc_time(282, sc_core::SC_NS));
  const auto& c = top.mxus()[0]->layer_mxu(0);
  CHECK(c.stall_input == 64);
  CHECK(c.weight_load == 8);
  CHECK(c.busy == 16);
  CHECK(c.fill_drain == 12);  // 76..82 and 276..282
  CHECK(c.stall_output == 182);
  CHECK(c.accounted() == 282);
}

namespace {

// Per layer, an MXU's cycle classes are those of the layer's ops (the wait before an op counts in
// its layer). Without overlap they partition the layer's cycles; with it a layer's ops may begin
// in the window of the layer before, so only the run's partition holds.
void check_mxu_statistics(bool overlap) {
  const auto chip = tiny_chip(2, "{rows: 4, cols: 4}", "{capacity: 4KiB}");
  workloads::MappingOptions mapping;
  mapping.layer_overlap = overlap;
  models::TpuChipSystem sys({chip, mapping});
  workloads::Workload w;
  w.layers = {gemm(24, 8, 12), gemm(3, 5, 7), gemm(16, 8, 4)};
  w.layers[1].name = "h";
  const auto r = sys.run(w, {});
  INFO("layer_overlap " << overlap);
  std::int64_t total = 0;
  for (size_t i = 0; i < r.layers.rows().size(); ++i) total += r.layers.get_int(i, "cycles");
  const auto& mxu = r.units.at(0);
  REQUIRE(mxu.name() == "mxu");
  check_partition(mxu, total);
  // One row per (layer, MXU); the rows of each MXU add up to its unit row.
  const stats::Table* per = nullptr;
  for (const auto& t : r.units)
    if (t.name() == "mxu_layers") per = &t;
  REQUIRE(per != nullptr);
  REQUIRE(per->rows().size() == 3 * 2);
  for (size_t u = 0; u < 2; ++u)
    for (const char* c : {"busy_cycles", "load_cycles", "stall_input_cycles", "macs", "folds"}) {
      std::int64_t sum = 0;
      for (size_t l = 0; l < 3; ++l) sum += per->get_int(l * 2 + u, c);
      INFO(c);
      CHECK(sum == mxu.get_int(u, c));
    }
  for (size_t l = 0; l < 3 && !overlap; ++l) {
    std::int64_t sum = 0;
    for (const char* c : {"busy_cycles", "load_cycles", "stall_input_cycles", "stall_output_cycles",
                          "fill_drain_cycles", "idle_cycles"})
      sum += per->get_int(l * 2, c);
    CHECK(sum == r.layers.get_int(l, "cycles"));
  }
  // Every column carries a unit and a description.
  for (const auto& col : per->columns()) CHECK(!col.description.empty());
  CHECK(r.layers.get_number(0, "mapping_efficiency") == Approx(1.0));
  CHECK(r.layers.get_number(1, "mapping_efficiency") < 1.0);
}

}  // namespace

TEST_CASE("mxu statistics: per layer and per unit, every cycle classified", "[sc][mxu]") {
  check_mxu_statistics(false);
}

TEST_CASE("mxu statistics with overlapping layers: per unit every cycle classified", "[sc][mxu]") {
  check_mxu_statistics(true);
}

namespace {

// The TPU v1-like preset's system section.
models::TpuSystemConfig tpuv1_system() {
  const auto root = config::load_yaml_file(test::source_dir() + "/configs/presets/tpuv1_like.yaml");
  return models::TpuSystemConfig::schema().load(*root.find("system"), "system");
}

// Its weight memory at 34.128e9 / 7e8 = 48.754 B a cycle; refresh leaves 1 - tRFC / tREFI =
// 1 - 278 / 8325 of it.
constexpr double kV1BytesPerCycle = 34.128e9 / 7e8, kV1Refresh = 1.0 - 278.0 / 8325.0;

}  // namespace

TEST_CASE("TPU v1-like preset: one 256x256 int8 MXU at 700 MHz", "[sc][mxu]") {
  const auto chip = tpuv1_system().chip;
  CHECK(chip.peak_macs_per_cycle() == 65536u);
  CHECK(chip.mxu.accumulators * chip.mxu.cols * 4 == 4 * 1024 * 1024);  // 4 MiB
  CHECK(chip.vmem.capacity.value() == 24u * 1024 * 1024);
  // Two DDR3-2133 channels at bank level: 2 x 8 B x 2133 MT/s, Table 2's 34 GB/s.
  CHECK(chip.hbm.model == models::HbmModel::kBank);
  CHECK(chip.hbm.bandwidth.value() == Approx(34.128e9));
  CHECK(chip.host.bandwidth.value() == 14e9);  // PCIe Gen3 x16 (models/link/README.md)
  // The weight memory's bound alone: without the host link, whose input and output transfers
  // (tests/e2e/test_host_link_e2e.cpp) would add 2 x 2 MiB of PCIe to this GEMM.
  auto no_host = chip;
  no_host.host = {};
  // Activations in the weight memory too (mapping defaults): 8192 x 256 x 256 = 2^29 MACs /
  // 2^16 per cycle = 8192 cycles of compute; the operands and result (8192x256 + 256x256 +
  // 8192x256 int8 = 4,259,840 B) take 87,374 cycles at the DDR3's peak, so the layer is bound
  // by the weight memory. The accumulators hold 2 x 2048 output rows, so the GEMM runs as 4
  // tiles of 2048 rows whose loads overlap the previous tile's compute. Reads and writes share
  // the DDR3 bus and the one DMA engine's queue: measured 103,768 cycles (the ideal 34 GB/s
  // memory: 94,361; no refresh: 100,273), beyond 1.1 x the refresh-limited stream (99,424), a
  // bound that ignored the write turnarounds. Upper bound here: twice the peak's time.
  models::TpuChipSystem sys({no_host, {}});
  workloads::Workload w;
  w.layers = {gemm(8192, 256, 256)};
  w.layers[0].dtype = DataType::kInt8;
  const auto r = sys.run(w, {});
  const double cycles = static_cast<double>(r.layers.get_int(0, "cycles"));
  const double bytes = 4259840;
  CHECK(r.layers.get_string(0, "bound") == "hbm");
  CHECK(r.layers.get_string(0, "tile") == "2048x256x256");
  CHECK(cycles >= bytes / kV1BytesPerCycle);
  CHECK(cycles <= 2 * bytes / kV1BytesPerCycle);
}

TEST_CASE("TPU v1-like preset: an MLP layer streams its weights at the DDR3's rate", "[sc][mxu]") {
  // The preset's own mapping (activations in the Unified Buffer, tiled weights): batch 256,
  // 2048 x 2048 int8 weights. Only the 4 MiB of weights move, as 64 tiles of 64 KiB read in
  // order: 86,030 cycles at the DDR3's peak, 89,001 at the part refresh leaves, while each
  // tile's matmul takes 256 + 256 cycles. The first tile's arrival and the last matmul stick
  // out (a few hundred cycles).
  auto sys_cfg = tpuv1_system();
  REQUIRE(sys_cfg.mapping.weights_tiled);
  sys_cfg.chip.host = {};
  models::TpuChipSystem sys(sys_cfg);
  workloads::Workload w;
  w.layers = {gemm(256, 2048, 2048)};
  w.layers[0].dtype = DataType::kInt8;
  const auto r = sys.run(w, {});
  const double cycles = static_cast<double>(r.layers.get_int(0, "cycles"));
  const double bytes = 2048.0 * 2048;
  INFO("MLP-like layer: " << cycles << " cycles");
  CHECK(r.layers.get_string(0, "bound") == "hbm");
  CHECK(cycles >= bytes / kV1BytesPerCycle);
  CHECK(cycles <= 1.1 * bytes / kV1BytesPerCycle / kV1Refresh);
}
