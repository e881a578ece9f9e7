// simrun --plan for tpu_chip: the compiled program summarised per layer, without simulating.
#include <fmt/format.h>

#include "models/dma/dma_module.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "sim/core/text.h"
#include "sim/core/units.h"
#include "sim/stats/summary.h"
#include "workloads/lowering/host_io.h"

namespace systole::models {

namespace {

struct LayerCounts {
  std::uint64_t loads = 0, stores = 0, matmuls = 0, vector = 0;
  std::uint64_t hbm = 0, cmem = 0, vmem = 0;  // bytes: DMA to/from HBM and CMEM; VMEM side
  std::uint64_t hbm_moved = 0;  // HBM bytes as the DMA engines move them (the granule)
};

/// Ops and bytes of all the layer's instances; `dma` rounds each HBM transfer's pieces up to
/// its granule as the DMA engines do (DmaModule::memory_transfer), so hbm_moved is what the
/// simulation's hbm_bytes will count.
LayerCounts count(const workloads::CompiledLayer& l, const DmaConfig& dma) {
  LayerCounts c;
  for (const Op& op : l.lowered.ops) {
    switch (op.kind) {
      case OpKind::kLoad:
      case OpKind::kStore:
        (op.kind == OpKind::kLoad ? c.loads : c.stores) += 1;
        (op.memory == TpuChipConfig::kHbm ? c.hbm : c.cmem) += op.bytes;
        if (op.memory == TpuChipConfig::kHbm)
          c.hbm_moved += DmaModule::memory_transfer(op, dma, 0).desc.bytes();
        c.vmem += op.bytes;
        break;
      case OpKind::kMatmul:
        c.matmuls += 1;
        c.vmem += op.bytes;  // operands the MXUs read
        break;
      case OpKind::kVector:
        c.vector += 1;
        c.vmem += op.bytes;
        break;
      case OpKind::kCollective:  // over ICI (tpu_pod): no chip memory traffic counted here
        break;
    }
  }
  const auto r = static_cast<std::uint64_t>(l.layer.repeat);
  for (auto* v :
       {&c.loads, &c.stores, &c.matmuls, &c.vector, &c.hbm, &c.cmem, &c.vmem, &c.hbm_moved})
    *v *= r;
  return c;
}

std::string bytes(std::uint64_t b) {
  return format_quantity(static_cast<double>(b), Dimension::kBytes);
}
std::string cycles(double c) { return with_commas(static_cast<unsigned long long>(c + 0.5)); }

/// The host link's transfers (system.chip.host), serial per batch: one line, or "" without one.
std::string host_line(const TpuChipConfig& chip, const workloads::CompiledWorkload& c) {
  if (!chip.host.declared()) return "";
  std::vector<workloads::Layer> layers;
  for (const auto& l : c.layers) layers.push_back(l.layer);
  std::uint64_t in = 0, out = 0, transfers = 0;
  for (const auto& instances : workloads::plan_host_transfers(layers))
    for (const auto& t : instances) {
      in += t.input_bytes;
      out += t.output_bytes;
      transfers += (t.input_bytes > 0) + (t.output_bytes > 0);
    }
  const double seconds = static_cast<double>(in + out) / chip.host.bandwidth.value() +
                         static_cast<double>(transfers) * chip.host.latency.value() * 1e-12;
  return fmt::format(
      "host link: {} in, {} out in {} transfers: {} cycles at {} and {} each, if none overlapped\n",
      bytes(in), bytes(out), transfers, cycles(seconds * chip.clock.value()),
      format_quantity(chip.host.bandwidth.value(), Dimension::kBandwidth),
      format_quantity(static_cast<double>(chip.host.latency.value()) * 1e-12, Dimension::kTime));
}

}  // namespace

std::string TpuChipSystem::plan(const workloads::Workload& w) const {
  const workloads::CompiledWorkload c = compile(w);
  std::vector<std::vector<std::string>> rows;
  LayerCounts total;
  double roofline = 0;
  for (const auto& l : c.layers) {
    const LayerCounts n = count(l, cfg_.chip.dma);
    const auto rep = static_cast<double>(l.layer.repeat);
    const auto& b = l.bounds;
    rows.push_back({l.layer.name, workloads::layer_op_name(l.layer.op), l.layer.shape(),
                    fmt::format("{}", l.layer.repeat), l.tile,
                    fmt::format("{}/{}/{}/{}", with_commas(n.loads), with_commas(n.stores),
                                with_commas(n.matmuls), with_commas(n.vector)),
                    bytes(n.hbm), bytes(n.hbm_moved), bytes(n.cmem), bytes(n.vmem),
                    cycles(b.compute_cycles * rep), cycles(b.vector_cycles * rep),
                    cycles(b.hbm_cycles * rep), cycles(b.roofline_cycles * rep), b.bound});
    total.loads += n.loads;
    total.stores += n.stores;
    total.matmuls += n.matmuls;
    total.vector += n.vector;
    total.hbm += n.hbm;
    total.hbm_moved += n.hbm_moved;
    total.cmem += n.cmem;
    total.vmem += n.vmem;
    roofline += b.roofline_cycles * rep;
  }
  rows.push_back({"total", "", "", "", "",
                  fmt::format("{}/{}/{}/{}", with_commas(total.loads), with_commas(total.stores),
                              with_commas(total.matmuls), with_commas(total.vector)),
                  bytes(total.hbm), bytes(total.hbm_moved), bytes(total.cmem), bytes(total.vmem),
                  "", "", "", cycles(roofline), ""});
  return stats::format_table(
             {"layer", "op", "shape", "repeat", "tile", "ops load/store/matmul/vector", "HBM",
              "HBM moved", "CMEM", "VMEM", "compute", "vector", "HBM bound", "roofline", "bound"},
             rows) +
         host_line(cfg_.chip, c);
}

}  // namespace systole::models
