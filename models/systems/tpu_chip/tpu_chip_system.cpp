#include "models/systems/tpu_chip/tpu_chip_system.h"

#include <fmt/format.h>

#include <memory>

#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/systems/tpu_chip/tpu_chip_stats.h"
#include "workloads/lowering/compile.h"

namespace systole::models {

std::vector<workloads::Layer> TpuChipSystem::layers(const workloads::Workload& w) const {
  return mapping().fuse_epilogues ? workloads::fuse_epilogues(w.layers) : w.layers;
}

workloads::CompiledWorkload TpuChipSystem::compile(const workloads::Workload& w) const {
  for (const auto& l : w.layers)
    if (workloads::is_collective_op(l.op))
      throw WorkloadError(fmt::format(
          "layer '{}': a collective ({}) needs a multi-chip system (system kind tpu_pod); one "
          "chip has no peers",
          l.name, workloads::layer_op_name(l.op)));
  return workloads::compile(cfg_.chip, layers(w), mapping());
}

void TpuChipSystem::check(const workloads::Workload& w) const { compile(w); }

Peaks TpuChipSystem::peaks() const {
  const TpuChipConfig& c = cfg_.chip;
  return {2.0 * static_cast<double>(c.peak_macs_per_cycle()) * c.clock.value(),
          c.hbm.bandwidth.value(), c.tdp_watts};
}

stats::PointResult TpuChipSystem::run(const workloads::Workload& w, const RunOptions& opt) {
  const TpuChipConfig& chip = cfg_.chip;
  stats::PointResult res;
  res.trace.enabled = opt.trace;
  res.trace.clock = chip.clock.value();
  for (auto k : {OpKind::kLoad, OpKind::kStore, OpKind::kMatmul, OpKind::kVector})
    res.trace.kinds.push_back(op_kind_name(k));

  const workloads::CompiledWorkload prog = compile(w);
  TpuChipModule top("chip0", chip, &res.trace);
  share_vmem_ports(top);
  TpuChipStats tree(chip, &top);  // the stats tree, read after the run

  const double start_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  std::vector<std::uint32_t> first_op;
  const Program program = workloads::link(chip, prog, &first_op);
  res.trace.units = program.units;
  top.run(program, static_cast<std::uint32_t>(prog.layers.size()));
  tree.finish(prog, first_op, start_ps);
  tree.write(res);  // /layers, /units/*, metrics: visits of the tree
  trace_ps_to_cycles(res.trace, tree.timebase());
  return res;
}

void share_vmem_ports(TpuChipModule& top) {
  const TpuChipConfig& chip = top.config();
  std::vector<std::shared_ptr<VmemPort>> ports;
  for (std::int64_t c = 0; c < chip.tensor_cores; ++c)
    ports.push_back(std::make_shared<VmemPort>(chip.vmem.bandwidth.value() / chip.clock.value()));
  for (const auto& m : top.mxus())
    m->attach_vmem(ports[static_cast<size_t>(m->id() / chip.units_per_core())]);
}

void trace_ps_to_cycles(stats::Trace& t, const stats::Timebase& tb) {
  for (auto& e : t.events) {
    e.begin = static_cast<std::uint64_t>(tb.cycles(static_cast<double>(e.begin)));
    e.end = static_cast<std::uint64_t>(tb.cycles(static_cast<double>(e.end)));
  }
}

void register_tpu_chip(Registry& r) {
  SystemFactory f = [](const config::Node& node, const std::string& path) {
    return std::make_unique<TpuChipSystem>(TpuSystemConfig::schema().load(node, path));
  };
  r.add({"tpu_chip", "system", "one TPU-class chip: TensorCores with MXUs, VMEM, CMEM, HBM, DMA",
         &TpuSystemConfig::schema(), f});
  r.add({"mxu",
         "component",
         "systolic matrix unit (ws/os/is): fold-level timing, or its PE-level reference with "
         "real arithmetic (model: pe), cycle for cycle equal",
         &MxuConfig::schema(),
         {}});
  r.add({"vmem",
         "component",
         "per-core vector memory (capacity model)",
         &SramConfig::vmem_schema(),
         {}});
  r.add({"cmem",
         "component",
         "chip common memory (bandwidth/latency model)",
         &SramConfig::cmem_schema(),
         {}});
  r.add({"hbm",
         "component",
         "HBM main memory: bank-level (HBM2/2e/3/3e presets) or bandwidth/latency model",
         &HbmConfig::schema(),
         {}});
  r.add({"dma", "component", "DMA engines between HBM/CMEM and VMEM", &DmaConfig::schema(), {}});
  for (const char* kind : {"tpu_chip", "mxu", "vmem", "cmem", "hbm", "dma"})
    r.add_stats(kind, [kind] { return describe_tpu_chip_stats(kind); });
}

}  // namespace systole::models
