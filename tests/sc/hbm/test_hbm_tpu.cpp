// The bank-level HBM in the loop of the TPU v4 chip (configs/presets/tpuv4_chip.yaml). A
// memory-bound layer — LLM decode, 8 x 8192 x 8192 bf16 — must run at the bandwidth the HBM
// model sustains for that layer's access pattern: the same DMA transfers (descriptors, engines,
// request size, outstanding limit, the interface latency on each port's response path, as
// HbmModule gives them) replayed through the plain C++ model back to back, without
// the program's dependencies. The layer time must match bytes / that bandwidth within 5%.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "models/dma/dma_module.h"
#include "models/hbm/hbm_timing.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "sim/config/node.h"
#include "tests/support/paths.h"
#include "workloads/lowering/tpu_gemm_lowering.h"

using namespace systole;

namespace {

models::TpuChipConfig tpuv4() {
  const auto root = config::load_yaml_file(test::source_dir() + "/configs/presets/tpuv4_chip.yaml");
  return models::TpuSystemConfig::schema().load(*root.find("system"), "system").chip;
}

workloads::Layer decode() {
  workloads::Layer l;
  l.name = "decode";
  l.m = 8;
  l.n = 8192;
  l.k = 8192;
  return l;
}

/// Bytes per second the plain HBM model sustains for `prog`'s DMA transfers, each engine's
/// transfers queued on its own port back to back.
double sustained(const models::TpuChipConfig& chip, const models::Program& prog,
                 std::uint64_t* bytes) {
  models::HbmTiming hbm(chip.hbm);
  std::map<std::uint16_t, std::uint32_t> port;
  const auto latency = static_cast<models::Cycle>(
      std::ceil(static_cast<double>(chip.hbm.latency.value()) / hbm.tck_ps() - 1e-9));
  *bytes = 0;
  for (const auto& op : prog.ops) {
    if (op.kind == models::OpKind::kMatmul) continue;
    const auto t = models::DmaModule::memory_transfer(op, chip.dma, op.unit);
    if (!port.count(op.unit))
      port[op.unit] = hbm.add_port(t.max_outstanding, t.request_bytes, latency);
    hbm.submit(port[op.unit], t.desc, t.write);
    *bytes += t.bytes();
  }
  const auto cycles = static_cast<double>(hbm.run_until_idle());
  return static_cast<double>(*bytes) / (cycles * hbm.tck_ps() * 1e-12);
}

}  // namespace

TEST_CASE("TPU v4 decode GEMM runs at the bandwidth the HBM model sustains", "[sc][hbm]") {
  const auto chip = tpuv4();
  REQUIRE(chip.hbm.model == models::HbmModel::kBank);
  const auto layer = decode();
  const auto mapping = workloads::map_gemm(chip, layer);
  const auto prog = workloads::lower_gemm(chip, layer, mapping);
  std::uint64_t bytes = 0;
  const double model_bw = sustained(chip, prog, &bytes);

  models::TpuChipSystem sys({chip, {}});
  workloads::Workload w;
  w.layers = {layer};
  const auto r = sys.run(w, {});
  const double time = r.layers.get_number(0, "time");
  const double achieved = r.layers.get_number(0, "hbm_bandwidth");
  CHECK(static_cast<std::uint64_t>(r.layers.get_int(0, "hbm_bytes")) == bytes);
  WARN("decode 8x8192x8192 bf16 on TPU v4: "
       << bytes << " B in " << time * 1e6 << " us = " << achieved / 1e12
       << " TB/s achieved; the HBM model sustains " << model_bw / 1e12
       << " TB/s for these transfers (peak " << chip.hbm.bandwidth.value() / 1e12
       << " TB/s); bytes / sustained = " << static_cast<double>(bytes) / model_bw * 1e6 << " us");
  CHECK(time == Approx(static_cast<double>(bytes) / model_bw).epsilon(0.05));
  CHECK(achieved <= model_bw * 1.01);  // the chip cannot beat the memory
  // The layer is memory bound: the HBM's sustained rate, not peak, sets its time.
  CHECK(achieved < 0.95 * chip.hbm.bandwidth.value());
}
