// The GEMM mapping and lowering: tiles fit VMEM, the program computes every MAC exactly once,
// moves at least the compulsory bytes, and only depends on earlier operations.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <random>

#include "models/mxu/mxu_timing.h"
#include "sim/config/node.h"
#include "tests/support/tiny_chip.h"
#include "workloads/lowering/tpu_gemm_lowering.h"

using namespace systole;
using test::chip_with;

namespace {

workloads::Layer gemm(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  workloads::Layer l;
  l.name = "g";
  l.batch = batch;
  l.m = m;
  l.n = n;
  l.k = k;
  return l;
}

}  // namespace

TEST_CASE("random GEMMs: tiles fit and the program covers every MAC once", "[unit][mapping]") {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int> dim(1, 3000), small(1, 4), mxu(0, 2);
  const char* chips[] = {"chip: {}",  // TPU v4
                         "chip: {tensor_cores: 1, mxus_per_core: 2, mxu: {rows: 32, cols: 16}, "
                         "vmem: {capacity: 256KiB}, dma: {engines: 3}}",
                         "chip: {tensor_cores: 3, mxus_per_core: 1, mxu: {rows: 7, cols: 5}, "
                         "vmem: {capacity: 64KiB}}"};
  for (int i = 0; i < 300; ++i) {
    const auto chip = chip_with(chips[mxu(rng)]);
    const auto l = gemm(small(rng), dim(rng) / (1 + small(rng)), dim(rng), dim(rng));
    INFO("case " << i << ": " << l.shape());
    const auto mp = workloads::map_gemm(chip, l);
    REQUIRE(mp.vmem_bytes <= chip.vmem.capacity.value());
    REQUIRE(mp.cores_used >= 1);
    REQUIRE(mp.cores_used <= chip.tensor_cores);
    const auto prog = workloads::lower_gemm(chip, l, mp);
    std::uint64_t macs = 0, loaded = 0, stored = 0;
    std::map<std::uint16_t, std::uint32_t> last_b;  // per MXU: the B load of its last matmul
    for (std::uint32_t j = 0; j < prog.ops.size(); ++j) {
      const auto& op = prog.ops[j];
      for (auto d : op.deps) REQUIRE(d < j);  // a DAG in program order: no deadlock possible
      REQUIRE(op.unit < chip.units());
      if (op.kind == models::OpKind::kMatmul) {
        REQUIRE(chip.unit_name(op.unit).find("mxu") != std::string::npos);
        REQUIRE(op.k <= static_cast<std::uint32_t>(mp.tk));
        // Two output tiles in flight fit the MXU's accumulators.
        REQUIRE(2 * models::MxuTiming(chip.mxu).matmul(op.m, op.k, op.n).accumulator_rows <=
                static_cast<std::uint64_t>(chip.mxu.accumulators));
        macs += static_cast<std::uint64_t>(op.m) * op.k * op.n;
        // Double buffering: an MXU's next step reads its B tile from the other VMEM slot.
        const std::uint32_t b = op.deps.at(0);
        const auto prev = last_b.find(op.unit);
        if (prev != last_b.end() && prev->second != b)
          CHECK(prog.ops[prev->second].sram_addr != prog.ops[b].sram_addr);
        last_b[op.unit] = b;
      } else {
        REQUIRE(chip.unit_name(op.unit).find("dma") != std::string::npos);
        if (op.memory == 0) (op.kind == models::OpKind::kLoad ? loaded : stored) += op.bytes;
      }
    }
    REQUIRE(macs == l.macs());
    const std::uint64_t M = static_cast<std::uint64_t>(l.rows()),
                        N = static_cast<std::uint64_t>(l.n), K = static_cast<std::uint64_t>(l.k);
    REQUIRE(stored == M * N * 2);            // C written exactly once (to HBM)
    REQUIRE(loaded >= (M * K + K * N) * 2);  // A and B read at least once
    REQUIRE(loaded + stored == mp.bounds.planned_bytes);
  }
}

TEST_CASE("GEMM bounds: compute and HBM rooflines of the TPU v4 chip", "[unit][mapping]") {
  const auto chip = chip_with("chip: {}");
  // 8192^3: 2^39 MACs over 8 x 128 x 128 = 2^17 MACs per cycle = 2^22 cycles.
  const auto sq = workloads::gemm_bounds(chip, gemm(1, 8192, 8192, 8192));
  CHECK(sq.compute_cycles == 4194304.0);
  CHECK(sq.bound == "compute");
  // Decode 8 x 8192 x 8192 bf16: bytes = (8*8192 + 8192*8192 + 8*8192) * 2 = 134479872;
  // the HBM2 preset's peak is 4 stacks x 8 channels x 16 B x 2.4e9 = 1.2288e12 B/s, so at
  // 1.05e9 Hz: 134479872 / (1.2288e12 / 1.05e9) = 114912 cycles.
  const auto dec = workloads::gemm_bounds(chip, gemm(1, 8, 8192, 8192));
  CHECK(dec.compulsory_bytes == 134479872u);
  CHECK(dec.hbm_cycles == Approx(114912.0));
  CHECK(dec.bound == "hbm");
}

TEST_CASE("the HBM latency bounds a tiling's step rate over the two VMEM slots (Little's law)",
          "[unit][mapping]") {
  // Each tile refills one of two VMEM slots only after the matmul two steps back has read it,
  // so a step that loads from HBM takes at least (latency + transfer + compute) / 2. With a
  // 20 us latency every estimate must carry that, and the mapper must take fewer, larger loads
  // than with none: on no shape more, on some fewer.
  const auto fast_chip = chip_with("chip: {hbm: {latency: 0ns}}");
  const auto slow_chip = chip_with("chip: {hbm: {latency: 20us}}");
  const double latency = 20e-6 * slow_chip.clock.value();  // cycles
  int fewer = 0;
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{64, 4096, 1024},
                                                                        {4096, 256, 4096},
                                                                        {128, 8192, 2048},
                                                                        {256, 2048, 8192},
                                                                        {1024, 1024, 8192},
                                                                        {32, 16384, 4096}}) {
    const auto l = gemm(1, m, n, k);
    const auto load_steps = [&](const workloads::GemmMapping& mp) {
      const std::int64_t cm = mp.split_n ? mp.rows : mp.core_extent;
      const std::int64_t cn = mp.split_n ? mp.core_extent : l.n;
      const std::int64_t mt = (cm + mp.tm - 1) / mp.tm, nt = (cn + mp.tn - 1) / mp.tn,
                         kt = (l.k + mp.tk - 1) / mp.tk;
      const std::int64_t blocks = (mp.rows + mp.row_block - 1) / mp.row_block;
      // B stationary: B loads once per n tile and row block (A from CMEM or resident).
      return static_cast<double>(mp.b_panel && mp.cmem_k > 0 ? blocks * nt * kt : mt * nt * kt);
    };
    const auto fast = workloads::map_gemm(fast_chip, l);
    const auto slow = workloads::map_gemm(slow_chip, l);
    INFO(l.shape() << ": fast " << fast.tile_text() << ", slow " << slow.tile_text());
    CHECK(slow.estimated_cycles >= load_steps(slow) * latency / 2);
    CHECK(load_steps(slow) <= load_steps(fast));
    fewer += load_steps(slow) < load_steps(fast);
  }
  CHECK(fewer > 0);
}

TEST_CASE("a GEMM that fits nowhere names the layer and the sizes", "[unit][mapping]") {
  const auto chip = chip_with("chip: {vmem: {capacity: 4KiB}}");
  auto l = gemm(1, 1024, 1024, 1024);
  l.name = "big";
  l.origin = {"w.yaml", 3, 5};
  REQUIRE_THROWS_WITH(workloads::map_gemm(chip, l),
                      "w.yaml:3:5: layer 'big' (1024x1024x1024) fits nowhere: its smallest tiling "
                      "needs 76 KiB of VMEM, the core has 4 KiB (raise system.chip.vmem.capacity)");
}

TEST_CASE("MXU fold timing", "[unit][mxu]") {
  models::MxuConfig cfg;
  cfg.rows = 128;
  cfg.cols = 128;
  const models::MxuTiming t(cfg);
  // ws: folds = ceil(K/R) * ceil(N/C) = 2 * 3; each fold streams max(M, R) cycles.
  auto c = t.matmul(1000, 200, 300);
  CHECK(c.folds == 6);
  CHECK(c.occupancy.value() == 6000);
  // The last fold (300 - 2 * 128 = 44 columns) streams from 128 + 5 * 1000; its last row leaves
  // the bottom R - 1 cycles after entering and column 43 another 43 cycles later: the last
  // result is out R + 44 - 2 = 170 cycles after the last row entered (the wider fold before it
  // ended 1000 cycles earlier).
  CHECK(c.latency.value() == 170);
  CHECK(c.load.value() == 128);
  CHECK(c.total.value() == 128 + 6000 + 170);
  // mapping efficiency: (200 / 256) * (300 / 384)
  CHECK(c.mapping_efficiency == Approx(200.0 / 256 * 300.0 / 384));
  // A short stream cannot hide the next weight load: each fold costs R cycles.
  c = t.matmul(8, 128, 128);
  CHECK(c.occupancy.value() == 128);
}

TEST_CASE("the MXU accumulators limit the output tile", "[unit][mapping][mxu]") {
  // 512 accumulator rows of 128 columns: two output tiles of each MXU's slice (tm x tn/4, or
  // tm/4 x tn when the MXUs split rows) must fit.
  const auto small = chip_with("chip: {mxu: {accumulators: 512}}");
  const auto l = gemm(1, 4096, 4096, 4096);
  const auto mp = workloads::map_gemm(small, l);
  const std::int64_t sm = mp.mxu_split_m ? (mp.tm + 3) / 4 : mp.tm,
                     sn = mp.mxu_split_m ? mp.tn : (mp.tn + 3) / 4;
  CHECK(2 * sm * ((sn + 127) / 128) <= 512);
  // The limit can only cost time: the cheapest tiling with roomy accumulators is at most the
  // cheapest without. The mapper picks the fewest-bytes tiling among those within 2% of the
  // cheapest (kTimeBand), so a pick's estimate may exceed the cheapest's by up to 2%.
  const auto roomy = workloads::map_gemm(chip_with("chip: {}"), l);
  CHECK(roomy.estimated_cycles <= mp.estimated_cycles * 1.02);
  // Nothing fits: the smallest tile (8 rows over 4 MXUs, 2 rows each, one column fold) needs
  // 2 x 2 = 4 rows.
  auto big = gemm(1, 1024, 1024, 1024);
  big.name = "big";
  big.origin = {"w.yaml", 3, 5};
  REQUIRE_THROWS_WITH(
      workloads::map_gemm(chip_with("chip: {mxu: {accumulators: 3}}"), big),
      "w.yaml:3:5: layer 'big' (1024x1024x1024) fits nowhere: its smallest output tile needs 4 "
      "accumulator rows per MXU (two tiles in flight), the MXU has 3 (raise "
      "system.chip.mxu.accumulators)");
}
