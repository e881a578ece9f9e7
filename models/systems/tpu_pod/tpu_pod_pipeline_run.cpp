// tpu_pod with pipeline stages (parallel.pipeline > 1): one simulated chip per stage (SPMD
// symmetry holds within a stage, not across: DESIGN.md §5), every stage's GPipe schedule and
// every ICI link under the point's one sc_start.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "models/ici/ici_module.h"
#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/systems/tpu_chip/tpu_chip_stats.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "models/systems/tpu_pod/pod_collective_unit.h"
#include "models/systems/tpu_pod/pod_stage_link.h"
#include "models/systems/tpu_pod/tpu_pod_pipeline.h"
#include "models/systems/tpu_pod/tpu_pod_stats.h"
#include "models/systems/tpu_pod/tpu_pod_system.h"
#include "workloads/mapping/layer_plan.h"

namespace systole::models {

namespace {

/// One stage's chip as simulated: its program, netlist and units.
struct StageSim {
  workloads::CompiledWorkload prog;
  Program program;
  std::vector<std::uint32_t> first_op;
  stats::Trace trace;
  std::unique_ptr<TpuChipModule> top;
  std::unique_ptr<PodCollectiveUnit> ici;
  std::unique_ptr<PodStageLink> link;
};

/// When the stage's last op completed, in picoseconds.
double stage_end_ps(const StageSim& s, double start_ps) {
  double end = start_ps;
  for (std::uint32_t i = 0; i < s.program.ops.size(); ++i)
    end = std::max(end, static_cast<double>(s.top->board().done_at(i).value()));
  return end;
}

PipelineStageRun stage_figures(const StageSim& sim, const workloads::PipelineStage& st,
                               std::int64_t micro, double start_ps) {
  PipelineStageRun r;
  double waits = 0;
  for (const auto& rec : sim.link->receives()) waits += rec.end_ps - rec.begin_ps;
  r.busy_s = (stage_end_ps(sim, start_ps) - start_ps - waits) * 1e-12;
  for (const auto& rec : sim.link->sends()) {
    r.send_bytes += static_cast<double>(rec.bytes);
    r.send_s += (rec.end_ps - rec.begin_ps) * 1e-12;
    r.send_formula_s += rec.formula_s;
  }
  r.layers = st.plan.layers.size();
  for (const auto& l : st.plan.layers) {
    r.macs += static_cast<double>(l.layer.macs()) * static_cast<double>(l.layer.repeat) *
              static_cast<double>(micro);
    r.weights += static_cast<double>(workloads::footprint(l.layer).weights);
  }
  return r;
}

}  // namespace

workloads::PipelinePlan TpuPodSystem::pipeline_plan(const workloads::Workload& w) const {
  return workloads::checked_pipeline_plan(w.layers, cfg_.degrees(), cfg_.parallel.microbatches,
                                          cfg_.axes().tensor);
}

workloads::CompiledWorkload TpuPodSystem::compile_stage(const workloads::PipelinePlan& p,
                                                        std::size_t s) const {
  std::vector<workloads::Layer> layers = p.stages.at(s).plan.chip_layers();
  const StageChips where =
      stage_chips(IciTopology(cfg_.ici), cfg_.axes().pipeline, cfg_.parallel.pipeline);
  check_stage_memory(cfg_.chip, layers, s, where.chips.at(s).front(), p.microbatches);
  if (cfg_.mapping.fuse_epilogues) layers = workloads::fuse_epilogues(layers);
  return workloads::compile(cfg_.chip, layers, cfg_.mapping);
}

stats::PointResult TpuPodSystem::run_pipeline(const workloads::Workload& w, const RunOptions& opt) {
  const TpuChipConfig& chip = cfg_.chip;
  stats::PointResult res;
  res.trace = pod_trace(chip, opt.trace);

  const workloads::PipelinePlan plan = pipeline_plan(w);
  const std::size_t stages = plan.stages.size();
  IciNetworkModule net("ici", cfg_.ici);
  const StageChips where =
      stage_chips(net.topology(), cfg_.axes().pipeline, cfg_.parallel.pipeline);
  PipelineHandoffs handoffs(stages);
  std::vector<std::unique_ptr<StageSim>> sims;
  for (std::size_t s = 0; s < stages; ++s) {
    auto sim = std::make_unique<StageSim>();
    const std::string device = fmt::format("stage{}", s);
    sim->prog = stage_schedule(compile_stage(plan, s), s, stages, plan.microbatches,
                               plan.stages[s].send_bytes);
    sim->trace = res.trace;
    sim->trace.enabled = true;  // the exposed communication is measured from the ops
    sim->top = std::make_unique<TpuChipModule>(device.c_str(), chip, &sim->trace);
    const auto id = static_cast<std::uint16_t>(chip.units());
    sim->ici = std::make_unique<PodCollectiveUnit>((device + "_ici").c_str(), id,
                                                   sim->top->scoreboard(), &sim->trace, net);
    sim->ici->restrict_to(where.mask(s, net.topology().chips()));
    sim->top->add_unit("ici", sim->ici.get());
    sim->link =
        std::make_unique<PodStageLink>((device + "_p2p").c_str(), id + 1, sim->top->scoreboard(),
                                       &sim->trace, net, handoffs, s, where.to_next[s]);
    sim->top->add_unit("p2p", sim->link.get());
    share_vmem_ports(*sim->top);
    sim->program = workloads::link(chip, sim->prog, &sim->first_op);
    rename_device(sim->program, device);
    sims.push_back(std::move(sim));
  }
  // The stats tree is the last stage's chip: it ends the run.
  StageSim& last = *sims.back();
  TpuChipStats tree(chip, last.top.get());

  const double start_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  for (auto& s : sims) s->top->start(s->program, static_cast<std::uint32_t>(s->prog.layers.size()));
  sc_core::sc_start();  // every stage, every link: until no event is pending
  for (auto& s : sims) s->top->finish();

  PipelineRun pr;
  pr.microbatches = plan.microbatches;
  double end_ps = start_ps;
  for (const auto& s : sims) end_ps = std::max(end_ps, stage_end_ps(*s, start_ps));
  pr.time_s = (end_ps - start_ps) * 1e-12;
  for (std::size_t s = 0; s < stages; ++s) {
    pr.stages.push_back(stage_figures(*sims[s], plan.stages[s], plan.microbatches, start_ps));
    pr.stages.back().idle_s = pr.time_s - pr.stages.back().busy_s;
  }

  tree.finish(last.prog, last.first_op, start_ps);
  const PodCommRun comm = pod_comm(last.ici->records(), last.trace, last.prog.layers.size());
  declare_pod_stats(tree.root(), comm, &net, tree.timebase());
  declare_pipeline_stats(tree.root(), pr);
  tree.write(res);
  std::vector<std::string> names;
  for (const auto& l : last.prog.layers) names.push_back(l.layer.name);
  std::vector<stats::TableSpec> specs = pod_tables();
  specs.push_back(pipeline_table());
  for (const auto& spec : specs)
    if (!stats::groups_of_kind(tree.root(), spec.kind).empty())
      res.units.push_back(stats::make_table(tree.root(), spec, names));

  if (opt.trace) {  // the last stage's chip
    res.trace.units = last.program.units;
    res.trace.places = last.trace.places;
    res.trace.events = std::move(last.trace.events);
    trace_ps_to_cycles(res.trace, tree.timebase());
  }
  return res;
}

}  // namespace systole::models
