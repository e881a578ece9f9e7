// simrun --plan for tpu_pod: how the workload is spread over the slice — each layer's split on
// the (one) chip role and the collectives inserted, with their bytes and alpha-beta time —
// without simulating.
#include <fmt/format.h>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_topology.h"
#include "models/systems/tpu_pod/pod_collective_unit.h"
#include "models/systems/tpu_pod/tpu_pod_pipeline.h"
#include "models/systems/tpu_pod/tpu_pod_system.h"
#include "sim/core/text.h"
#include "sim/core/units.h"
#include "sim/stats/summary.h"

namespace systole::models {

namespace {

std::string axes_text(const std::array<bool, 3>& a) {
  std::string s;
  for (int i = 0; i < 3; ++i)
    if (a[static_cast<size_t>(i)]) s += (s.empty() ? "" : ",") + std::string(1, "xyz"[i]);
  return s.empty() ? "-" : s;
}

/// One row per layer as a chip runs it: its split, weights and, for a collective, its bytes,
/// group, algorithm and alpha-beta time.
std::vector<std::vector<std::string>> layer_rows(const std::vector<workloads::ParallelLayer>& ls,
                                                 const IciTopology& topo,
                                                 const IciLinkTiming& timing) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : ls) {
    const workloads::LayerFootprint f = workloads::footprint(l.layer);
    std::string coll = "", ab = "";
    if (workloads::is_collective_op(l.layer.op)) {
      Op op = workloads::lower_collective(l.layer).lowered.ops.front();
      const CollectiveSpec spec = PodCollectiveUnit::spec_of(op);
      const int group = [&] {
        int g = 1;
        for (int a = 0; a < 3; ++a)
          if (spec.axes[static_cast<size_t>(a)]) g *= topo.shape()[static_cast<size_t>(a)];
        return g;
      }();
      coll = fmt::format("{} over {} chips ({})",
                         format_quantity(static_cast<double>(spec.bytes), Dimension::kBytes), group,
                         collective_algorithm_name(spec.algorithm));
      ab = format_quantity(alpha_beta_seconds(topo, timing, spec), Dimension::kTime);
    }
    rows.push_back({l.layer.name + (l.inserted ? " *" : ""), workloads::layer_op_name(l.layer.op),
                    l.layer.shape(), l.split,
                    format_quantity(static_cast<double>(f.weights), Dimension::kBytes), coll, ab});
  }
  return rows;
}

const std::vector<std::string> kLayerHeader = {
    "layer", "op", "per-chip shape", "split", "weights/chip", "collective", "alpha-beta"};

}  // namespace

std::string TpuPodSystem::plan(const workloads::Workload& w) const {
  if (cfg_.parallel.pipeline > 1) return plan_pipeline(w);
  const workloads::ParallelPlan p = partition(w);
  const workloads::CompiledWorkload c = compile(w);  // checks memory and mapping
  const IciTopology topo(cfg_.ici);
  const IciLinkTiming timing = IciLinkTiming::from(cfg_.ici);
  const auto d = cfg_.degrees();
  const ParallelAxes axes = cfg_.axes();
  std::string out = fmt::format(
      "slice {} ({} chips, {}), data {} x tensor {} x pipeline {}; tensor group on axes {}, data "
      "group on axes {}. SPMD: one chip role (chip0) simulated, every ICI link simulated.\n"
      "Inference: data-parallel replicas do not communicate (no gradient all-reduce).\n",
      cfg_.ici.shape_text(), cfg_.ici.chips(), ici_topology_name(cfg_.ici.topology), d.data,
      d.tensor, d.pipeline, axes_text(axes.tensor), axes_text(axes.data));
  const auto rows = layer_rows(p.layers, topo, timing);
  out += stats::format_table(kLayerHeader, rows);
  out += fmt::format(
      "* inserted by the compiler. {} layers compiled for chip0 (epilogues fused: {}).\n",
      c.layers.size(), cfg_.mapping.fuse_epilogues ? "yes" : "no");
  return out;
}

std::string TpuPodSystem::plan_pipeline(const workloads::Workload& w) const {
  const workloads::PipelinePlan p = pipeline_plan(w);
  const IciTopology topo(cfg_.ici);
  const IciLinkTiming timing = IciLinkTiming::from(cfg_.ici);
  const auto d = cfg_.degrees();
  const ParallelAxes axes = cfg_.axes();
  const StageChips where = stage_chips(topo, axes.pipeline, d.pipeline);
  const auto pp = static_cast<double>(d.pipeline);
  const auto m = static_cast<double>(p.microbatches);
  std::string out = fmt::format(
      "slice {} ({} chips, {}), data {} x tensor {} x pipeline {}, {} micro-batches; tensor group "
      "on axes {}, pipeline stages along axes {}, data group on axes {}. One chip simulated per "
      "stage (SPMD within a stage), every ICI link simulated.\n"
      "GPipe schedule (Huang et al., arXiv 1811.06965, 2.2): stage s starts micro-batch j once "
      "stage s-1 has sent it and stage s has finished j-1; bubble for equal stages "
      "(P-1)/(M+P-1) = {:.3f}.\n",
      cfg_.ici.shape_text(), cfg_.ici.chips(), ici_topology_name(cfg_.ici.topology), d.data,
      d.tensor, d.pipeline, p.microbatches, axes_text(axes.tensor), axes_text(axes.pipeline),
      axes_text(axes.data), (pp - 1) / (m + pp - 1));
  std::vector<std::vector<std::string>> stage_rows;
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    const auto& st = p.stages[s];
    std::uint64_t macs = 0, weights = 0;
    for (const auto& l : st.plan.layers) {
      macs += l.layer.macs() * static_cast<std::uint64_t>(l.layer.repeat);
      weights += workloads::footprint(l.layer).weights;
    }
    std::string sends = "-";
    if (s + 1 < p.stages.size()) {
      const auto& pairs = where.to_next[s];
      sends =
          fmt::format("{} per chip per micro-batch, chip {} -> {} ... ({} pairs), idle {}",
                      format_quantity(static_cast<double>(st.send_bytes), Dimension::kBytes),
                      pairs.front().first, pairs.front().second, pairs.size(),
                      format_quantity(point_to_point_seconds(topo, timing, pairs, st.send_bytes),
                                      Dimension::kTime));
    }
    stage_rows.push_back(
        {std::to_string(s), fmt::format("{} ({})", where.chips[s].front(), where.chips[s].size()),
         fmt::format("{}..{}", w.layers[st.range.first].name, w.layers[st.range.end - 1].name),
         fmt::format("{:.4g}", static_cast<double>(st.range.macs)),
         fmt::format("{:.4g}", static_cast<double>(macs)),
         format_quantity(static_cast<double>(weights), Dimension::kBytes), sends});
  }
  out += stats::format_table({"stage", "first chip (chips)", "layers", "MACs (whole batch)",
                              "MACs/chip/micro-batch", "weights/chip", "sends to next stage"},
                             stage_rows);
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    const workloads::CompiledWorkload c = compile_stage(p, s);  // checks memory and mapping
    out += fmt::format("\nstage {}: one micro-batch per chip ({} layers compiled)\n", s,
                       c.layers.size());
    out += stats::format_table(kLayerHeader, layer_rows(p.stages[s].plan.layers, topo, timing));
  }
  out += "* inserted by the compiler.\n";
  return out;
}

}  // namespace systole::models
