#include "models/systems/tpu_chip/tpu_chip_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "models/common/memory_stats.h"
#include "models/dma/dma_stats.h"
#include "models/hbm/hbm_stats.h"
#include "models/mxu/mxu_stats.h"
#include "models/sram/sram_stats.h"
#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/vector/vector_stats.h"

namespace systole::models {

namespace {

using stats::Cell;
using stats::ColumnType;
using stats::kRun;
using stats::StatInfo;
using stats::StatScope;
using Run = TpuChipStats::Run;

StatInfo per_layer(const char* name, const char* unit, const char* desc,
                   ColumnType t = ColumnType::kFloat) {
  return {name, unit, desc, t, StatScope::kLayerOnly};
}

/// A unit's counters in a scope.
UnitCounters unit_counters(const UnitModule& u, std::size_t s) {
  return s == kRun ? u.total_counters() : u.layer_counters(static_cast<std::uint32_t>(s));
}

// ---- the chip's own stats: per layer (/layers) and for the run (the /sweep metrics) ---------

const workloads::CompiledLayer& layer(const Run& r, std::size_t l) { return r.prog->layers.at(l); }
double repeat(const Run& r, std::size_t l) { return static_cast<double>(layer(r, l).layer.repeat); }
double useful_macs(const Run& r, std::size_t l) {
  return static_cast<double>(layer(r, l).bounds.macs) * repeat(r, l);
}
double seconds(const Run& r, std::size_t s) {
  return s == kRun ? r.tb.span_ps(kRun) * 1e-12 : r.elapsed_ps.at(s) * 1e-12;
}
std::uint64_t total_macs(const Run& r) {
  std::uint64_t t = 0;
  for (std::size_t l = 0; l < r.prog->layers.size(); ++l)
    t += static_cast<std::uint64_t>(useful_macs(r, l));
  return t;
}
/// Bytes the DMA engines moved to and from `memory` in a scope.
std::uint64_t memory_bytes(const Run& r, std::size_t s, int memory) {
  if (s == kRun) {
    std::uint64_t t = 0;
    for (std::size_t l = 0; l < r.prog->layers.size(); ++l) t += memory_bytes(r, l, memory);
    return t;
  }
  std::uint64_t t = 0;
  for (const auto& d : r.top->dmas()) t += d->memory_bytes(static_cast<std::uint32_t>(s), memory);
  return t;
}
/// Bytes the host DMA engine moved over the host link in a scope (0 without one).
std::uint64_t host_bytes(const Run& r, std::size_t s) {
  const DmaModule* d = r.top->host_dma();
  if (!d) return 0;
  if (s != kRun) return d->memory_bytes(static_cast<std::uint32_t>(s), 0);
  std::uint64_t t = 0;
  for (std::size_t l = 0; l < r.prog->layers.size(); ++l) t += host_bytes(r, l);
  return t;
}
/// The MXUs' counters of a layer, summed.
MxuCounters mxu_sum(const Run& r, std::size_t l) {
  MxuCounters t;
  for (const auto& m : r.top->mxus()) t.add(m->layer_mxu(static_cast<std::uint32_t>(l)));
  return t;
}
/// Mean cycles per MXU of a layer's counter (not rounded per MXU).
double mxu_mean(const Run& r, std::uint64_t n) {
  const double mxu_ps = r.top->period().to_seconds() * 1e12;
  return static_cast<double>(n) * mxu_ps / static_cast<double>(r.top->mxus().size()) /
         r.tb.period_ps;
}

void declare_layer_text(stats::StatGroup& g, const Run& r) {
  const auto text = [&](const char* name, const char* desc, auto f) {
    g.formula(per_layer(name, "", desc, ColumnType::kString),
              [&r, f](std::size_t l) -> Cell { return f(layer(r, l)); });
  };
  text("layer", "layer name", [](const workloads::CompiledLayer& c) { return c.layer.name; });
  text("op", "layer operation",
       [](const workloads::CompiledLayer& c) { return workloads::layer_op_name(c.layer.op); });
  text("shape", "layer shape (gemm: batch x (m x n x k))",
       [](const workloads::CompiledLayer& c) { return c.layer.shape(); });
  g.formula(
      per_layer("repeat", "", "times the layer runs in a row (all figures cover every repeat)",
                ColumnType::kInt),
      [&r](std::size_t l) { return layer(r, l).layer.repeat; });
  text("tile", "tiling of each step (GEMM: VMEM tile tm x tn x tk per core)",
       [](const workloads::CompiledLayer& c) { return c.tile; });
}

void declare_layer_work(stats::StatGroup& g, const Run& r) {
  g.formula({"macs", "MAC", "useful multiply-accumulates (a layer's: all its repeats)"},
            [&r](std::size_t s) {
              return static_cast<std::int64_t>(s == kRun ? static_cast<double>(total_macs(r))
                                                         : useful_macs(r, s));
            });
  g.formula(per_layer("mxu_macs", "MAC",
                      "multiply-accumulates the MXUs executed (incl. masked/padded work)",
                      ColumnType::kInt),
            [&r](std::size_t l) { return static_cast<std::int64_t>(mxu_sum(r, l).macs); });
  g.formula(per_layer("lane_ops", "", "vector-unit lane operations", ColumnType::kInt),
            [&r](std::size_t l) {
              std::uint64_t t = 0;
              for (const auto& v : r.top->vpus()) t += v->lane_ops(static_cast<std::uint32_t>(l));
              return static_cast<std::int64_t>(t);
            });
  g.formula(per_layer("cycles", "cycles",
                      "simulated cycles: from the end of the layers before it to the end of its "
                      "last op",
                      ColumnType::kInt),
            [&r](std::size_t l) { return r.tb.layer_cycles.at(l); });
  g.formula(per_layer("end_cycle", "cycles", "cycle its last op (or an earlier layer's) completed",
                      ColumnType::kInt),
            [&r](std::size_t l) { return r.tb.cycles(r.end_ps.at(l)); });
  g.formula({"time", "s", "simulated time", ColumnType::kFloat},
            [&r](std::size_t s) { return seconds(r, s); });
}

void declare_layer_mxu(stats::StatGroup& g, const Run& r) {
  const auto mean = [&](const char* name, const char* desc, auto field) {
    g.formula(per_layer(name, "cycles", desc),
              [&r, field](std::size_t l) { return mxu_mean(r, field(mxu_sum(r, l))); });
  };
  mean("mxu_busy_cycles", "mean cycles an operand vector entered an MXU",
       [](const MxuCounters& t) { return t.busy; });
  mean("mxu_stall_cycles",
       "mean cycles an MXU stalled (mxu_stall_input_cycles + mxu_stall_output_cycles)",
       [](const MxuCounters& t) { return t.stall_input + t.stall_output; });
  mean("mxu_stall_input_cycles", "mean cycles an MXU waited for its operands",
       [](const MxuCounters& t) { return t.stall_input; });
  mean("mxu_stall_output_cycles",
       "mean cycles an MXU waited for results to leave (output registers, accumulators)",
       [](const MxuCounters& t) { return t.stall_output; });
  mean("mxu_stall_weight_cycles",
       "mean cycles an MXU waited for a weight tile from memory (within "
       "mxu_fill_drain_cycles and mxu_stall_input_cycles)",
       [](const MxuCounters& t) { return t.stall_weight; });
  mean("mxu_stall_host_cycles",
       "mean cycles an MXU waited for the workload's input from host memory (within "
       "mxu_fill_drain_cycles and mxu_stall_input_cycles; 0 without a host link)",
       [](const MxuCounters& t) { return t.stall_host; });
  mean("mxu_load_cycles", "mean cycles an MXU waited for a weight tile to shift in",
       [](const MxuCounters& t) { return t.weight_load; });
  mean("mxu_fill_drain_cycles",
       "mean cycles an MXU had nothing to stream while its pipeline filled or drained",
       [](const MxuCounters& t) { return t.fill_drain; });
  g.formula(
      {"mac_utilization", "", "useful MACs / (peak MACs per cycle x cycles)", ColumnType::kFloat},
      [&r](std::size_t s) {
        const auto peak = static_cast<double>(r.top->config().peak_macs_per_cycle());
        const double macs = s == kRun ? static_cast<double>(total_macs(r)) : useful_macs(r, s);
        return macs / (peak * static_cast<double>(r.tb.span(s)));
      });
  g.formula(per_layer("vector_busy_cycles", "cycles", "mean cycles a vector unit was busy"),
            [&r](std::size_t l) {
              double ps = 0;
              for (const auto& v : r.top->vpus())
                ps += v->layer_counters(static_cast<std::uint32_t>(l)).busy_ps;
              return ps / static_cast<double>(r.top->vpus().size()) / r.tb.period_ps;
            });
  g.formula(per_layer("mapping_efficiency", "", "PEs holding real operands / PEs, MAC-weighted"),
            [&r](std::size_t l) {
              const MxuCounters t = mxu_sum(r, l);
              return t.macs ? t.mapping_weighted / static_cast<double>(t.macs) : 0.0;
            });
}

void declare_layer_memory(stats::StatGroup& g, const Run& r) {
  g.formula({"hbm_bytes", "B", "bytes moved to and from HBM"},
            [&r](std::size_t s) { return static_cast<std::int64_t>(memory_bytes(r, s, 0)); });
  g.formula(
      per_layer("hbm_bandwidth", "B/s", "achieved HBM bandwidth: hbm_bytes / simulated time"),
      [&r](std::size_t l) { return static_cast<double>(memory_bytes(r, l, 0)) / seconds(r, l); });
  g.formula(
      per_layer("cmem_bytes", "B", "bytes moved to and from CMEM (staged operands, partial sums)",
                ColumnType::kInt),
      [&r](std::size_t l) { return static_cast<std::int64_t>(memory_bytes(r, l, 1)); });
  g.formula({"host_bytes", "B",
             "bytes moved over the host link (the workload's input in, its output out; 0 "
             "without a host link)"},
            [&r](std::size_t s) { return static_cast<std::int64_t>(host_bytes(r, s)); });
  g.formula(per_layer("planned_bytes", "B", "HBM bytes the lowered program moves (all repeats)",
                      ColumnType::kInt),
            [&r](std::size_t l) {
              return static_cast<std::int64_t>(static_cast<double>(layer(r, l).planned_bytes) *
                                               repeat(r, l));
            });
  g.formula(per_layer("compulsory_bytes", "B",
                      "inputs read once, outputs written once (all repeats)", ColumnType::kInt),
            [&r](std::size_t l) {
              return static_cast<std::int64_t>(
                  static_cast<double>(layer(r, l).bounds.compulsory_bytes) * repeat(r, l));
            });
  g.formula(per_layer("arithmetic_intensity", "FLOP/B", "FLOPs per compulsory byte"),
            [&r](std::size_t l) { return layer(r, l).bounds.intensity; });
  g.formula({"achieved_flops", "FLOP/s", "2 x useful MACs / simulated time", ColumnType::kFloat},
            [&r](std::size_t s) {
              const double macs =
                  s == kRun ? static_cast<double>(total_macs(r)) : useful_macs(r, s);
              return 2.0 * macs / seconds(r, s);
            });
}

void declare_layer_bounds(stats::StatGroup& g, const Run& r) {
  const auto bound = [&](const char* name, const char* desc, double workloads::LayerBounds::*f) {
    g.formula(per_layer(name, "cycles", desc),
              [&r, f](std::size_t l) { return layer(r, l).bounds.*f * repeat(r, l); });
  };
  bound("compute_bound_cycles", "MACs / peak MACs per cycle",
        &workloads::LayerBounds::compute_cycles);
  bound("vector_bound_cycles", "lane operations / (lanes x cores)",
        &workloads::LayerBounds::vector_cycles);
  bound("hbm_bound_cycles", "compulsory bytes / peak HBM bandwidth",
        &workloads::LayerBounds::hbm_cycles);
  bound("roofline_cycles", "max(compute, vector, HBM bounds)",
        &workloads::LayerBounds::roofline_cycles);
  g.formula(per_layer("bound", "", "resource that bounds the roofline", ColumnType::kString),
            [&r](std::size_t l) -> Cell { return layer(r, l).bounds.bound; });
  g.formula(per_layer("roofline_fraction", "", "roofline cycles / simulated cycles"),
            [&r](std::size_t l) {
              return layer(r, l).bounds.roofline_cycles * repeat(r, l) /
                     static_cast<double>(r.tb.layer_cycles.at(l));
            });
}

void declare_chip(stats::StatGroup& g, const Run& r) {
  g.formula({"total_cycles", "cycles", "simulated cycles of all layers", ColumnType::kInt,
             StatScope::kRunOnly},
            [&r](std::size_t) { return r.tb.total_cycles; });
  declare_layer_text(g, r);
  declare_layer_work(g, r);
  declare_layer_mxu(g, r);
  declare_layer_memory(g, r);
  declare_layer_bounds(g, r);
}

}  // namespace

TpuChipStats::TpuChipStats(const TpuChipConfig& cfg, const TpuChipModule* top) {
  run_.top = top;
  declare_chip(root_, run_);
  declare_parts(cfg);
}

void TpuChipStats::declare_parts(const TpuChipConfig& cfg) {
  const TpuChipModule* top = run_.top;
  const stats::Timebase& tb = run_.tb;
  const bool pattern = top == nullptr;
  stats::StatGroup& hbm = root_.group("hbm", "memory");
  declare_memory_stats(
      hbm, [top] { return top->hbm().counters(); }, tb);
  if (pattern || top->hbm_banks())
    declare_hbm_channel_stats(
        hbm, cfg.hbm, [top]() -> const HbmTiming& { return top->hbm_banks()->timing(); }, pattern);
  declare_memory_stats(
      root_.group("cmem", "memory"), [top] { return top->cmem().counters(); }, tb);
  if (!pattern && top->host_dma()) declare_host_parts();
  const std::int64_t cores = pattern ? 1 : cfg.tensor_cores;
  for (std::int64_t c = 0; c < cores; ++c) {
    stats::StatGroup& core =
        root_.group(pattern ? "core<c>" : fmt::format("core{}", c), "tensor_core");
    for (std::int64_t i = 0; i < (pattern ? 1 : cfg.mxus_per_core); ++i) {
      const auto m = static_cast<std::size_t>(c * cfg.mxus_per_core + i);
      const MxuModule* mxu = pattern ? nullptr : top->mxus()[m].get();
      declare_mxu_stats(
          core.group(pattern ? "mxu<i>" : fmt::format("mxu{}", i), "mxu"),
          [mxu](std::size_t s) {
            return s == stats::kRun ? mxu->total_mxu()
                                    : mxu->layer_mxu(static_cast<std::uint32_t>(s));
          },
          pattern ? 0.0 : mxu->period().to_seconds() * 1e12,
          static_cast<double>(cfg.mxu.rows * cfg.mxu.cols), tb);
    }
    for (std::int64_t e = 0; e < (pattern ? 1 : cfg.dma.engines); ++e) {
      const auto d = static_cast<std::size_t>(c * cfg.dma.engines + e);
      const DmaModule* dma = pattern ? nullptr : top->dmas()[d].get();
      declare_dma(core.group(pattern ? "dma<e>" : fmt::format("dma{}", e), "dma"), dma);
    }
    const VectorModule* vpu = pattern ? nullptr : top->vpus()[static_cast<std::size_t>(c)].get();
    declare_vector_stats(
        core.group("vpu", "vector"), [vpu](std::size_t s) { return unit_counters(*vpu, s); },
        [vpu, &run = run_](std::size_t s) {
          if (s != stats::kRun) return vpu->lane_ops(static_cast<std::uint32_t>(s));
          std::uint64_t t = 0;
          for (std::uint32_t l = 0; l < run.prog->layers.size(); ++l) t += vpu->lane_ops(l);
          return t;
        },
        tb);
    const SramModule* vmem = pattern ? nullptr : top->vmems()[static_cast<std::size_t>(c)].get();
    declare_vmem_stats(
        core.group("vmem", "vmem"), [vmem]() -> const SramTiming& { return vmem->timing(); }, tb);
  }
}

void TpuChipStats::declare_host_parts() {
  const TpuChipModule* top = run_.top;
  declare_memory_stats(
      root_.group("host", "memory"), [top] { return top->host()->counters(); }, run_.tb);
  declare_dma(root_.group("host_dma", "dma"), top->host_dma(), DmaMemories::kHost);
}

void TpuChipStats::declare_dma(stats::StatGroup& g, const DmaModule* dma, DmaMemories memories) {
  declare_dma_stats(
      g, [dma](std::size_t s) { return unit_counters(*dma, s); },
      [dma](std::size_t l, int memory) {
        return dma->memory_bytes(static_cast<std::uint32_t>(l), memory);
      },
      [dma, &run = run_](std::size_t s) {
        if (s != kRun) return dma->held_ps(static_cast<std::uint32_t>(s));
        double t = 0;
        for (std::uint32_t l = 0; l < run.prog->layers.size(); ++l) t += dma->held_ps(l);
        return t;
      },
      run_.tb, memories);
}

void TpuChipStats::finish(const workloads::CompiledWorkload& prog,
                          const std::vector<std::uint32_t>& first_op, double start_ps) {
  const TpuChipModule& top = *run_.top;
  run_.prog = &prog;
  stats::Timebase& tb = run_.tb;
  // Cycles are counted in the kernel's clock period (whole picoseconds, 952 ps at 1050 MHz),
  // the period every unit waits in, so simulated cycles are exact and never undercut a bound.
  tb.period_ps = top.period().to_seconds() * 1e12;
  const std::size_t n = prog.layers.size();
  tb.layer_cycles.assign(n, 0);
  tb.total_cycles = 0;
  run_.elapsed_ps.assign(n, 0);
  run_.end_ps.assign(n, 0);
  // A layer's span runs from the end of the layers before it to the end of its last op (or of
  // an earlier layer's, if later), so the spans add up to the run exactly; with layer_overlap
  // its ops may begin before the layer before it has ended.
  double end_before_ps = start_ps;
  for (std::size_t l = 0; l < n; ++l) {
    double end_ps = end_before_ps;
    for (std::uint32_t i = first_op[l]; i < first_op[l + 1]; ++i)
      end_ps = std::max(end_ps, static_cast<double>(top.board().done_at(i).value()));
    run_.elapsed_ps[l] = end_ps - end_before_ps;
    tb.layer_cycles[l] = tb.cycles(end_ps) - tb.cycles(end_before_ps);
    run_.end_ps[l] = end_ps - start_ps;
    tb.total_cycles += tb.layer_cycles[l];
    end_before_ps = end_ps;
  }
  if (HbmModule* h = top.hbm_banks()) h->sync();  // the bank-level model's counters up to now
}

const std::vector<stats::TableSpec>& TpuChipStats::tables() {
  using Rows = stats::TableSpec::Rows;
  static const std::vector<stats::TableSpec> specs = {
      {"layers", "tpu_chip", "one row per layer", Rows::kLayers, "", ""},
      {"mxu", "mxu", "one row per MXU", Rows::kGroups, "", "unit"},
      {"dma", "dma", "one row per DMA engine", Rows::kGroups, "", "unit"},
      {"memory", "memory", "one row per memory", Rows::kGroups, "", "unit"},
      {"mxu_layers", "mxu", "one row per layer per MXU", Rows::kLayersByGroups, "", "unit"},
      {"vmem", "vmem", "one row per TensorCore VMEM: the DMA engines' tile traffic", Rows::kGroups,
       "", "unit"},
      {"hbm_channel", "hbm_channel", "one row per HBM channel (bank-level model), whole run",
       Rows::kGroups, "memory", "channel"},
  };
  return specs;
}

void TpuChipStats::write(stats::PointResult& res) const {
  std::vector<std::string> names;
  for (const auto& l : run_.prog->layers) names.push_back(l.layer.name);
  const auto& specs = tables();
  res.layers = stats::make_table(root_, specs.front(), names);
  for (std::size_t i = 1; i < specs.size(); ++i)
    if (!stats::groups_of_kind(root_, specs[i].kind).empty())
      res.units.push_back(stats::make_table(root_, specs[i], names));
  res.metrics = stats::run_record(root_);
}

std::string describe_tpu_chip_stats(const std::string& kind) {
  const TpuChipStats tree(TpuChipConfig{}, nullptr);
  const stats::StatGroup& root = tree.root();
  const stats::StatGroup* part = &root;
  if (kind != "tpu_chip") {
    // A part: the group named `kind` (hbm, cmem), else the first group of that kind.
    part = root.find_group(kind);
    if (!part) {
      const auto g = stats::groups_of_kind(root, kind);
      if (g.empty()) return "";
      part = g.front();
    }
  }
  std::vector<stats::TableSpec> specs;
  for (const auto& s : TpuChipStats::tables()) {
    if (!stats::groups_of_kind(*part, s.kind).empty()) specs.push_back(s);
  }
  return stats::describe_stats(*part, specs);
}

}  // namespace systole::models
