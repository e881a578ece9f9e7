#include "models/systems/tpu_pod/tpu_pod_system.h"

#include <fmt/format.h>

#include <memory>

#include "models/ici/ici_module.h"
#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/systems/tpu_chip/tpu_chip_stats.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "models/systems/tpu_pod/pod_collective_unit.h"
#include "models/systems/tpu_pod/tpu_pod_stats.h"
#include "sim/core/units.h"
#include "workloads/mapping/layer_plan.h"

namespace systole::models {

namespace {

std::string slice_text(const TpuPodConfig& c) {
  const auto d = c.degrees();
  return fmt::format("{} slice ({} chips, data {} x tensor {}{})", c.ici.shape_text(),
                     c.ici.chips(), d.data, d.tensor,
                     d.pipeline > 1 ? fmt::format(" x pipeline {}", d.pipeline) : "");
}

}  // namespace

void check_chip_memory(const TpuChipConfig& chip, const std::vector<workloads::Layer>& layers,
                       const std::string& slice) {
  workloads::check_memory(layers, chip.hbm.capacity.value(), "chip0", "every chip of the " + slice);
}

workloads::ParallelPlan TpuPodSystem::partition(const workloads::Workload& w) const {
  return workloads::partition(w.layers, cfg_.degrees(), cfg_.axes().tensor);
}

std::vector<workloads::Layer> TpuPodSystem::chip_layers(const workloads::Workload& w) const {
  std::vector<workloads::Layer> layers = partition(w).chip_layers();
  check_chip_memory(cfg_.chip, layers, slice_text(cfg_));
  return cfg_.mapping.fuse_epilogues ? workloads::fuse_epilogues(layers) : layers;
}

workloads::CompiledWorkload TpuPodSystem::compile(const workloads::Workload& w) const {
  return workloads::compile(cfg_.chip, chip_layers(w), cfg_.mapping);
}

void TpuPodSystem::check(const workloads::Workload& w) const {
  if (cfg_.parallel.pipeline == 1) {
    compile(w);
    return;
  }
  const workloads::PipelinePlan p = pipeline_plan(w);
  for (std::size_t s = 0; s < p.stages.size(); ++s) compile_stage(p, s);
}

Peaks TpuPodSystem::peaks() const {
  const TpuChipConfig& c = cfg_.chip;
  const auto chips = static_cast<double>(cfg_.ici.chips());
  return {2.0 * static_cast<double>(c.peak_macs_per_cycle()) * c.clock.value() * chips,
          c.hbm.bandwidth.value() * chips, c.tdp_watts * chips};
}

stats::PointResult TpuPodSystem::run(const workloads::Workload& w, const RunOptions& opt) {
  if (cfg_.parallel.pipeline > 1) return run_pipeline(w, opt);
  const TpuChipConfig& chip = cfg_.chip;
  stats::PointResult res;
  res.trace = pod_trace(chip, opt.trace);

  const workloads::CompiledWorkload prog = compile(w);
  // The chip's ops are always traced: the exposed communication is measured from them.
  stats::Trace trace = res.trace;
  trace.enabled = true;
  IciNetworkModule net("ici", cfg_.ici);
  TpuChipModule top("chip0", chip, &trace);
  PodCollectiveUnit ici("chip0_ici", static_cast<std::uint16_t>(chip.units()), top.scoreboard(),
                        &trace, net);
  top.add_unit("ici", &ici);
  share_vmem_ports(top);
  TpuChipStats tree(chip, &top);

  const double start_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  std::vector<std::uint32_t> first_op;
  const Program program = workloads::link(chip, prog, &first_op);
  top.run(program, static_cast<std::uint32_t>(prog.layers.size()));
  tree.finish(prog, first_op, start_ps);
  const PodCommRun comm = pod_comm(ici.records(), trace, prog.layers.size());
  declare_pod_stats(tree.root(), comm, &net, tree.timebase());
  tree.write(res);
  std::vector<std::string> names;
  for (const auto& l : prog.layers) names.push_back(l.layer.name);
  for (const auto& spec : pod_tables())
    if (!stats::groups_of_kind(tree.root(), spec.kind).empty())
      res.units.push_back(stats::make_table(tree.root(), spec, names));

  if (opt.trace) {
    res.trace.units = program.units;
    res.trace.places = trace.places;
    res.trace.events = std::move(trace.events);
    trace_ps_to_cycles(res.trace, tree.timebase());
  }
  return res;
}

stats::Trace pod_trace(const TpuChipConfig& chip, bool enabled) {
  stats::Trace t;
  t.enabled = enabled;
  t.clock = chip.clock.value();
  for (auto k :
       {OpKind::kLoad, OpKind::kStore, OpKind::kMatmul, OpKind::kVector, OpKind::kCollective})
    t.kinds.push_back(op_kind_name(k));
  return t;
}

void register_tpu_pod(Registry& r) {
  SystemFactory f = [](const config::Node& node, const std::string& path) {
    return std::make_unique<TpuPodSystem>(TpuPodConfig::schema().load(node, path));
  };
  r.add({"tpu_pod", "system",
         "a TPU slice: identical chips on the ICI torus, data/tensor parallel, SPMD (one chip's "
         "compute simulated, every link simulated)",
         &TpuPodConfig::schema(), f});
}

}  // namespace systole::models
