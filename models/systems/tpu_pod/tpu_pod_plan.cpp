// simrun --plan for tpu_pod: how the workload is spread over the slice — each layer's split on
// the (one) chip role and the collectives inserted, with their bytes and alpha-beta time —
// without simulating.
#include <fmt/format.h>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_topology.h"
#include "models/systems/tpu_pod/pod_collective_unit.h"
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

}  // namespace

std::string TpuPodSystem::plan(const workloads::Workload& w) const {
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
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : p.layers) {
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
  out += stats::format_table(
      {"layer", "op", "per-chip shape", "split", "weights/chip", "collective", "alpha-beta"}, rows);
  out += fmt::format(
      "* inserted by the compiler. {} layers compiled for chip0 (epilogues fused: {}).\n",
      c.layers.size(), cfg_.mapping.fuse_epilogues ? "yes" : "no");
  return out;
}

}  // namespace systole::models
