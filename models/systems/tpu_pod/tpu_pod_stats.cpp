#include "models/systems/tpu_pod/tpu_pod_stats.h"

#include <algorithm>
#include <utility>
#include <variant>

namespace systole::models {

namespace {

using stats::ColumnType;
using stats::kRun;
using stats::StatScope;

/// Length of [b, e) not covered by the sorted, disjoint intervals `busy`.
double uncovered(double b, double e, const std::vector<std::pair<double, double>>& busy) {
  double covered = 0;
  auto it = std::upper_bound(busy.begin(), busy.end(), std::make_pair(b, b),
                             [](const auto& x, const auto& y) { return x.second < y.second; });
  for (; it != busy.end() && it->first < e; ++it)
    covered += std::max(0.0, std::min(e, it->second) - std::max(b, it->first));
  return (e - b) - covered;
}

/// Union of the compute ops' intervals, sorted and disjoint.
std::vector<std::pair<double, double>> compute_busy(const stats::Trace& trace) {
  std::vector<std::pair<double, double>> v;
  for (const auto& e : trace.events)
    if (e.kind == static_cast<std::uint16_t>(OpKind::kMatmul) ||
        e.kind == static_cast<std::uint16_t>(OpKind::kVector))
      v.emplace_back(static_cast<double>(e.begin), static_cast<double>(e.end));
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& x : v) {
    if (!merged.empty() && x.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, x.second);
    else
      merged.push_back(x);
  }
  return merged;
}

double sum(const std::vector<double>& v) {
  double t = 0;
  for (double x : v) t += x;
  return t;
}

}  // namespace

PodCommRun pod_comm(const std::vector<PodCollectiveRecord>& records, const stats::Trace& trace,
                    std::size_t layers) {
  PodCommRun r;
  for (auto* v : {&r.time_s, &r.bytes, &r.busbw_time, &r.formula_s, &r.exposed_s})
    v->assign(layers, 0.0);
  const auto busy = compute_busy(trace);
  for (const auto& c : records) {
    const std::size_t l = c.layer;
    r.time_s[l] += c.result.time_s;
    r.bytes[l] += static_cast<double>(c.spec.bytes);
    r.busbw_time[l] += c.result.busbw * c.result.time_s;
    r.formula_s[l] += c.result.formula_s;
    r.exposed_s[l] += uncovered(c.begin_ps, c.end_ps, busy) * 1e-12;
  }
  return r;
}

void declare_pod_stats(stats::StatGroup& chip, const PodCommRun& run, const IciNetworkModule* net,
                       const stats::Timebase& tb) {
  using Field = const std::vector<double> PodCommRun::*;
  const auto value = [&run](Field f, std::size_t s) {
    return s == kRun ? sum(run.*f) : (run.*f).at(s);
  };
  const auto scoped = [value](Field f) {
    return [value, f](std::size_t s) { return value(f, s); };
  };
  // f / time_s in a scope (0 where no collective ran).
  const auto per_second = [value](Field f) {
    return [value, f](std::size_t s) {
      const double t = value(&PodCommRun::time_s, s);
      return t > 0 ? value(f, s) / t : 0.0;
    };
  };
  chip.formula({"collective_time", "s", "time collectives ran (first message to last arrival)",
                ColumnType::kFloat},
               scoped(&PodCommRun::time_s));
  chip.formula({"collective_bytes", "B", "S of the collectives, summed (nccl-tests' size)",
                ColumnType::kFloat},
               scoped(&PodCommRun::bytes));
  chip.formula({"algbw", "B/s",
                "collective algorithm bandwidth: S / time (nccl-tests doc/PERFORMANCE.md); 0: "
                "no collective",
                ColumnType::kFloat},
               per_second(&PodCommRun::bytes));
  chip.formula({"busbw", "B/s",
                "collective bus bandwidth: algbw x 2(p-1)/p (all-reduce) or (p-1)/p "
                "(nccl-tests doc/PERFORMANCE.md), time-weighted over the collectives",
                ColumnType::kFloat},
               per_second(&PodCommRun::busbw_time));
  chip.formula({"collective_formula_time", "s",
                "alpha-beta time of the collectives on an idle network (models/ici/README.md)",
                ColumnType::kFloat},
               scoped(&PodCommRun::formula_s));
  chip.formula({"exposed_comm_time", "s",
                "collective time during which no MXU or vector unit of the chip computed (not "
                "overlapped with compute)",
                ColumnType::kFloat},
               scoped(&PodCommRun::exposed_s));
  const stats::StatGroup* ici = nullptr;
  if (net) {
    stats::StatGroup& g = chip.group("ici", "ici");
    net->declare_stats(g, tb);
    ici = &g;
  }
  chip.formula({"max_link_utilization", "", "busiest ICI link's busy time / run time",
                ColumnType::kFloat, StatScope::kRunOnly},
               [ici](std::size_t) {
                 const stats::Stat* s = ici ? ici->find("max_link_utilization") : nullptr;
                 const stats::Cell v = s ? s->value(kRun) : stats::Cell{0.0};
                 return std::holds_alternative<double>(v) ? std::get<double>(v) : 0.0;
               });
}

const std::vector<stats::TableSpec>& pod_tables() {
  using Rows = stats::TableSpec::Rows;
  static const std::vector<stats::TableSpec> specs = {
      {"ici_links", "ici_link", "one row per directed ICI link of the slice, whole run",
       Rows::kGroups, "ici", "link"},
      {"collectives", "collective", "one row per collective the slice ran", Rows::kGroups, "ici",
       "collective"},
  };
  return specs;
}

void declare_pipeline_stats(stats::StatGroup& chip, const PipelineRun& run) {
  const auto info = [](const char* name, const char* unit, const char* desc) {
    return stats::StatInfo{name, unit, desc, ColumnType::kFloat, StatScope::kRunOnly};
  };
  const PipelineRun* r = &run;
  const auto total = [r](double PipelineStageRun::*f) {
    double t = 0;
    for (const auto& s : r->stages) t += s.*f;
    return t;
  };
  chip.formula(info("pipeline_bubble", "",
                    "fraction of stage-time idle: sum over stages of idle time / (stages x run "
                    "time) (GPipe, arXiv 1811.06965, §2.2)"),
               [r](std::size_t) { return r->bubble(); });
  chip.formula(
      info("pipeline_bubble_formula", "", "GPipe's bubble for equal stages: (P - 1) / (M + P - 1)"),
      [r](std::size_t) {
        const auto p = static_cast<double>(r->stages.size());
        return (p - 1) / (static_cast<double>(r->microbatches) + p - 1);
      });
  chip.formula(info("p2p_bytes", "B",
                    "stage hand-offs: bytes each sending chip sent, summed "
                    "over stages and micro-batches"),
               [total](std::size_t) { return total(&PipelineStageRun::send_bytes); });
  chip.formula(info("p2p_time", "s",
                    "stage hand-offs: issue to last arrival, summed over stages and micro-batches"),
               [total](std::size_t) { return total(&PipelineStageRun::send_s); });
  stats::StatGroup& g = chip.group("pipeline", "pipeline");
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    stats::StatGroup& st = g.group("stage" + std::to_string(i), "pipeline_stage");
    const auto field = [r, i](double PipelineStageRun::*f) {
      return [r, i, f](std::size_t) { return r->stages.at(i).*f; };
    };
    st.formula(info("busy_time", "s",
                    "from the start to the stage's last op, less its waits for the stage before"),
               field(&PipelineStageRun::busy_s));
    st.formula(info("idle_time", "s", "run time less busy time"), field(&PipelineStageRun::idle_s));
    st.formula(info("layers", "", "compiled layers of one micro-batch, per chip"),
               [r, i](std::size_t) { return static_cast<double>(r->stages.at(i).layers); });
    st.formula(info("macs", "", "MACs per chip, all micro-batches"),
               field(&PipelineStageRun::macs));
    st.formula(info("weights", "B", "weight bytes per chip"), field(&PipelineStageRun::weights));
    st.formula(info("p2p_bytes", "B", "bytes each chip sent to its peer in the next stage"),
               field(&PipelineStageRun::send_bytes));
    st.formula(info("p2p_time", "s", "its hand-offs, issue to last arrival, summed"),
               field(&PipelineStageRun::send_s));
    st.formula(info("p2p_formula_time", "s",
                    "its hand-offs on an idle network: hops x (router + link latency) + "
                    "serialisation, summed"),
               field(&PipelineStageRun::send_formula_s));
  }
}

const stats::TableSpec& pipeline_table() {
  static const stats::TableSpec spec{"pipeline_stages",
                                     "pipeline_stage",
                                     "one row per pipeline stage, whole run",
                                     stats::TableSpec::Rows::kGroups,
                                     "pipeline",
                                     "stage"};
  return spec;
}

}  // namespace systole::models
