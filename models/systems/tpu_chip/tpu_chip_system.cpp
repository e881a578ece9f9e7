#include "models/systems/tpu_chip/tpu_chip_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "workloads/lowering/compile.h"

namespace systole::models {

namespace {

using stats::Record;

std::int64_t to_cycles(double ps, double period_ps) {
  return static_cast<std::int64_t>(std::llround(ps / period_ps));
}

/// The MXU columns shared by the per-unit and the per-(layer, unit) tables. Counters are in MXU
/// cycles of `mxu_ps` picoseconds; `cycles` is the span the row covers.
void mxu_columns(Record& r, const MxuCounters& x, std::int64_t cycles, double mxu_ps,
                 double period_ps, double pes) {
  const auto cyc = [&](std::uint64_t n) {
    return to_cycles(static_cast<double>(n) * mxu_ps, period_ps);
  };
  const std::int64_t classified = cyc(x.accounted());
  r.i("busy_cycles", "cycles", "cycles an operand vector entered the array", cyc(x.busy))
      .i("load_cycles", "cycles", "cycles waiting for a stationary (weight) tile to shift in",
         cyc(x.weight_load))
      .i("stall_input_cycles", "cycles",
         "cycles an op waited for its operands (not in VMEM yet, or not yet delivered by the "
         "VMEM port)",
         cyc(x.stall_input))
      .i("stall_output_cycles", "cycles",
         "cycles waiting for results to leave (os output registers; the accumulator buffer's "
         "previous tile not yet stored)",
         cyc(x.stall_output))
      .i("stall_weight_cycles", "cycles",
         "cycles an op waited for a weight tile from memory (within fill_drain_cycles and "
         "stall_input_cycles; TPU v1's weight stall counter)",
         cyc(x.stall_weight))
      .i("stall_cycles", "cycles", "stall_input_cycles + stall_output_cycles",
         cyc(x.stall_input + x.stall_output))
      .i("fill_drain_cycles", "cycles",
         "cycles with nothing to stream while the previous op was still in the array",
         cyc(x.fill_drain))
      .i("idle_cycles", "cycles", "cycles in none of the classes above",
         std::max<std::int64_t>(0, cycles - classified))
      .i("ops", "", "matmul operations", static_cast<std::int64_t>(x.ops))
      .i("folds", "", "array folds", static_cast<std::int64_t>(x.folds))
      .i("macs", "MAC", "multiply-accumulates", static_cast<std::int64_t>(x.macs))
      .i("bytes", "B", "operand bytes the array read from VMEM",
         static_cast<std::int64_t>(x.vmem_bytes))
      .f("mac_utilization", "", "MACs / (PEs x cycles)",
         cycles ? static_cast<double>(x.macs) / (pes * static_cast<double>(cycles)) : 0.0)
      .f("mapping_efficiency", "", "PEs holding real operands / PEs, MAC-weighted",
         x.macs ? x.mapping_weighted / static_cast<double>(x.macs) : 0.0);
}

}  // namespace

std::vector<workloads::Layer> TpuChipSystem::layers(const workloads::Workload& w) const {
  return mapping().fuse_epilogues ? workloads::fuse_epilogues(w.layers) : w.layers;
}

workloads::CompiledWorkload TpuChipSystem::compile(const workloads::Workload& w) const {
  return workloads::compile(cfg_.chip, layers(w), mapping());
}

void TpuChipSystem::check(const workloads::Workload& w) const { compile(w); }

namespace {

/// Bytes each layer's DMA ops move to and from HBM ([0]) and CMEM ([1]), as the memories see
/// them (pieces rounded up to the DMA granule).
std::vector<std::array<std::uint64_t, 2>> memory_bytes(const Program& p, size_t layers,
                                                       const DmaConfig& dma) {
  std::vector<int> slot;  // per memory the program names
  for (const auto& path : p.memories)
    slot.push_back(path.size() >= 4 && path.compare(path.size() - 4, 4, ".hbm") == 0 ? 0 : 1);
  std::vector<std::array<std::uint64_t, 2>> out(layers, {0, 0});
  for (const Op& op : p.ops)
    if (op.kind == OpKind::kLoad || op.kind == OpKind::kStore)
      out[op.layer][slot[op.memory]] += DmaModule::memory_transfer(op, dma, 0).bytes();
  return out;
}

}  // namespace

stats::PointResult TpuChipSystem::run(const workloads::Workload& w, const RunOptions& opt) {
  const TpuChipConfig& chip = cfg_.chip;
  stats::PointResult res;
  res.trace.enabled = opt.trace;
  for (auto k : {OpKind::kLoad, OpKind::kStore, OpKind::kMatmul, OpKind::kVector})
    res.trace.kinds.push_back(op_kind_name(k));

  const workloads::CompiledWorkload prog = compile(w);
  TpuChipModule top("chip0", chip, &res.trace);
  // The MXUs of a TensorCore share its VMEM read port (vmem.bandwidth).
  std::vector<std::shared_ptr<VmemPort>> vmem_ports;
  for (std::int64_t c = 0; c < chip.tensor_cores; ++c)
    vmem_ports.push_back(
        std::make_shared<VmemPort>(chip.vmem.bandwidth.value() / chip.clock.value()));
  for (const auto& m : top.mxus())
    m->attach_vmem(vmem_ports[static_cast<size_t>(m->id() / chip.units_per_core())]);
  // Cycles are counted in the kernel's clock period (whole picoseconds, 952 ps at 1050 MHz),
  // the period every unit waits in, so simulated cycles are exact and never undercut a bound.
  const double period_ps = top.period().to_seconds() * 1e12;
  const double mxu_ps = top.period().to_seconds() * 1e12;
  const double peak = static_cast<double>(chip.peak_macs_per_cycle());
  const auto n_layers = static_cast<std::uint32_t>(prog.layers.size());
  const double start_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  std::vector<std::uint32_t> first_op;
  const Program program = workloads::link(chip, prog, &first_op);
  res.trace.units = program.units;
  top.run(program, n_layers);
  const auto layer_bytes = memory_bytes(program, n_layers, chip.dma);

  std::int64_t total_cycles = 0;
  std::uint64_t total_macs = 0, total_hbm = 0;
  stats::Table mxu_layers_t("mxu_layers", "one row per layer per MXU");
  // A layer's cycles run from the end of the layers before it to the end of its last op (or of
  // an earlier layer's, if later), so they add up to the run's cycles exactly; with
  // layer_overlap its ops may begin before the layer before it has ended.
  double end_before_ps = start_ps;
  for (std::uint32_t li = 0; li < n_layers; ++li) {
    const workloads::CompiledLayer& cl = prog.layers[li];
    const workloads::Layer& l = cl.layer;
    double end_ps = end_before_ps;
    for (std::uint32_t i = first_op[li]; i < first_op[li + 1]; ++i)
      end_ps = std::max(end_ps, static_cast<double>(top.board().done_at(i).value()));
    const double elapsed_ps = end_ps - end_before_ps;
    const std::int64_t cycles = to_cycles(end_ps, period_ps) - to_cycles(end_before_ps, period_ps);
    end_before_ps = end_ps;
    MxuCounters t;
    for (const auto& m : top.mxus()) {
      t.add(m->layer_mxu(li));
      Record r;
      r.s("layer", "layer name", l.name).s("name", "unit", res.trace.units[m->id()]);
      mxu_columns(r, m->layer_mxu(li), cycles, mxu_ps, period_ps,
                  static_cast<double>(m->timing().peak_macs_per_cycle()));
      mxu_layers_t.append(r);
    }
    const double n_mxu = static_cast<double>(top.mxus().size());
    const auto mean_cycles = [&](std::uint64_t n) {
      return static_cast<double>(n) * mxu_ps / n_mxu / period_ps;
    };
    const std::uint64_t hbm_bytes = layer_bytes[li][0], cmem_bytes = layer_bytes[li][1];
    std::uint64_t lane_ops = 0;
    double vpu_busy_ps = 0;
    for (const auto& v : top.vpus()) {
      lane_ops += v->lane_ops(li);
      vpu_busy_ps += v->layer_counters(li).busy_ps;
    }
    const auto rep = static_cast<double>(l.repeat);
    const auto& b = cl.bounds;
    const auto useful_macs = static_cast<double>(b.macs) * rep;
    const double seconds = elapsed_ps * 1e-12;
    Record rec;
    rec.s("layer", "layer name", l.name)
        .s("op", "layer operation", workloads::layer_op_name(l.op))
        .s("shape", "layer shape (gemm: batch x (m x n x k))", l.shape())
        .i("repeat", "", "times the layer runs in a row (all figures cover every repeat)", l.repeat)
        .s("tile", "tiling of each step (GEMM: VMEM tile tm x tn x tk per core)", cl.tile)
        .i("macs", "MAC", "useful multiply-accumulates of the layer (all repeats)",
           static_cast<std::int64_t>(useful_macs))
        .i("mxu_macs", "MAC", "multiply-accumulates the MXUs executed (incl. masked/padded work)",
           static_cast<std::int64_t>(t.macs))
        .i("lane_ops", "", "vector-unit lane operations", static_cast<std::int64_t>(lane_ops))
        .i("cycles", "cycles",
           "simulated cycles: from the end of the layers before it to the end of its last op",
           cycles)
        .i("end_cycle", "cycles", "cycle its last op (or an earlier layer's) completed",
           to_cycles(end_ps - start_ps, period_ps))
        .f("time", "s", "simulated time", seconds)
        .f("mxu_busy_cycles", "cycles", "mean cycles an operand vector entered an MXU",
           mean_cycles(t.busy))
        .f("mxu_stall_cycles", "cycles",
           "mean cycles an MXU stalled (mxu_stall_input_cycles + mxu_stall_output_cycles)",
           mean_cycles(t.stall_input + t.stall_output))
        .f("mxu_stall_input_cycles", "cycles", "mean cycles an MXU waited for its operands",
           mean_cycles(t.stall_input))
        .f("mxu_stall_output_cycles", "cycles",
           "mean cycles an MXU waited for results to leave (output registers, accumulators)",
           mean_cycles(t.stall_output))
        .f("mxu_stall_weight_cycles", "cycles",
           "mean cycles an MXU waited for a weight tile from memory (within "
           "mxu_fill_drain_cycles and mxu_stall_input_cycles)",
           mean_cycles(t.stall_weight))
        .f("mxu_load_cycles", "cycles", "mean cycles an MXU waited for a weight tile to shift in",
           mean_cycles(t.weight_load))
        .f("mxu_fill_drain_cycles", "cycles",
           "mean cycles an MXU had nothing to stream while its pipeline filled or drained",
           mean_cycles(t.fill_drain))
        .f("mac_utilization", "", "useful MACs / (peak MACs per cycle x cycles)",
           useful_macs / (peak * static_cast<double>(cycles)))
        .f("vector_busy_cycles", "cycles", "mean cycles a vector unit was busy",
           vpu_busy_ps / static_cast<double>(top.vpus().size()) / period_ps)
        .f("mapping_efficiency", "", "PEs holding real operands / PEs, MAC-weighted",
           t.macs ? t.mapping_weighted / static_cast<double>(t.macs) : 0.0)
        .i("hbm_bytes", "B", "bytes moved to and from HBM", static_cast<std::int64_t>(hbm_bytes))
        .f("hbm_bandwidth", "B/s", "achieved HBM bandwidth: hbm_bytes / simulated time",
           static_cast<double>(hbm_bytes) / seconds)
        .i("cmem_bytes", "B", "bytes moved to and from CMEM (staged operands, partial sums)",
           static_cast<std::int64_t>(cmem_bytes))
        .i("planned_bytes", "B", "HBM bytes the lowered program moves (all repeats)",
           static_cast<std::int64_t>(static_cast<double>(cl.planned_bytes) * rep))
        .i("compulsory_bytes", "B", "inputs read once, outputs written once (all repeats)",
           static_cast<std::int64_t>(static_cast<double>(b.compulsory_bytes) * rep))
        .f("arithmetic_intensity", "FLOP/B", "FLOPs per compulsory byte", b.intensity)
        .f("achieved_flops", "FLOP/s", "2 x useful MACs / simulated time",
           2.0 * useful_macs / seconds)
        .f("compute_bound_cycles", "cycles", "MACs / peak MACs per cycle", b.compute_cycles * rep)
        .f("vector_bound_cycles", "cycles", "lane operations / (lanes x cores)",
           b.vector_cycles * rep)
        .f("hbm_bound_cycles", "cycles", "compulsory bytes / peak HBM bandwidth",
           b.hbm_cycles * rep)
        .f("roofline_cycles", "cycles", "max(compute, vector, HBM bounds)", b.roofline_cycles * rep)
        .s("bound", "resource that bounds the roofline", b.bound)
        .f("roofline_fraction", "", "roofline cycles / simulated cycles",
           b.roofline_cycles * rep / static_cast<double>(cycles));
    res.layers.append(rec);
    total_cycles += cycles;
    total_macs += static_cast<std::uint64_t>(useful_macs);
    total_hbm += hbm_bytes;
  }

  const double total_ps = static_cast<double>(total_cycles) * period_ps;
  stats::Table mxu_t("mxu", "one row per MXU");
  for (const auto& m : top.mxus()) {
    Record r;
    r.s("name", "unit", res.trace.units[m->id()]);
    mxu_columns(r, m->total_mxu(), total_cycles, mxu_ps, period_ps,
                static_cast<double>(m->timing().peak_macs_per_cycle()));
    mxu_t.append(r);
  }
  stats::Table dma_t("dma", "one row per DMA engine");
  for (const auto& d : top.dmas()) {
    const auto c = d->total_counters();
    Record r;
    r.s("name", "unit", res.trace.units[d->id()])
        .i("busy_cycles", "cycles", "cycles issuing transfers", to_cycles(c.busy_ps, period_ps))
        .i("idle_cycles", "cycles", "cycles not issuing",
           total_cycles - to_cycles(c.busy_ps, period_ps))
        .i("stall_cycles", "cycles", "cycles with transfers queued but dependencies pending",
           to_cycles(c.stall_ps, period_ps))
        .i("ops", "", "transfers", static_cast<std::int64_t>(c.ops))
        .i("bytes", "B", "bytes moved", static_cast<std::int64_t>(c.bytes))
        .f("utilization", "", "busy cycles / cycles", c.busy_ps / total_ps);
    dma_t.append(r);
  }
  stats::Table mem_t("memory", "one row per memory");
  for (const MemoryIf* m : {&top.hbm(), static_cast<const MemoryIf*>(&top.cmem())}) {
    Record r;
    const MemoryCounters mc = m->counters();
    const auto bytes = mc.bytes_read + mc.bytes_written;
    r.s("name", "unit", m == &top.hbm() ? "hbm" : "cmem")
        .i("bytes_read", "B", "bytes read", static_cast<std::int64_t>(mc.bytes_read))
        .i("bytes_written", "B", "bytes written", static_cast<std::int64_t>(mc.bytes_written))
        .i("busy_cycles", "cycles", "cycles transferring", to_cycles(mc.busy_ps, period_ps))
        .i("idle_cycles", "cycles", "cycles not transferring",
           total_cycles - to_cycles(mc.busy_ps, period_ps))
        .f("bandwidth", "B/s", "achieved bandwidth over the run",
           static_cast<double>(bytes) / (total_ps * 1e-12))
        .f("utilization", "", "achieved / peak bandwidth",
           static_cast<double>(bytes) / (total_ps * 1e-12) / mc.peak_bytes_per_second);
    mem_t.append(r);
  }
  res.units = {std::move(mxu_t), std::move(dma_t), std::move(mem_t), std::move(mxu_layers_t)};
  stats::Table vmem_t("vmem", "one row per TensorCore VMEM: the DMA engines' tile traffic");
  for (std::size_t c = 0; c < top.vmems().size(); ++c) {
    const SramTiming& v = top.vmems()[c]->timing();
    Record r;
    r.s("name", "unit", fmt::format("core{}.vmem", c))
        .i("bytes_written", "B", "tile bytes the DMA engines wrote (loads)",
           static_cast<std::int64_t>(v.bytes_written()))
        .i("bytes_read", "B", "tile bytes the DMA engines read (stores)",
           static_cast<std::int64_t>(v.bytes_read()))
        .i("busy_cycles", "cycles", "cycles with a bank access in progress",
           to_cycles(v.busy_ps(), period_ps))
        .i("conflict_cycles", "cycles",
           "cycles accesses took beyond an even spread over every bank and port",
           to_cycles(v.conflict_ps(), period_ps));
    vmem_t.append(r);
  }
  res.units.push_back(std::move(vmem_t));
  if (HbmModule* h = top.hbm_banks()) {  // the bank-level HBM: per-channel statistics
    h->sync();
    res.units.push_back(hbm_channel_table(h->timing()));
  }

  for (auto& e : res.trace.events) {
    e.begin = static_cast<std::uint64_t>(to_cycles(static_cast<double>(e.begin), period_ps));
    e.end = static_cast<std::uint64_t>(to_cycles(static_cast<double>(e.end), period_ps));
  }

  res.metrics.i("total_cycles", "cycles", "simulated cycles of all layers", total_cycles)
      .f("time", "s", "simulated time", total_ps * 1e-12)
      .i("macs", "MAC", "multiply-accumulates", static_cast<std::int64_t>(total_macs))
      .f("mac_utilization", "", "MACs / (peak MACs per cycle x cycles)",
         static_cast<double>(total_macs) / (peak * static_cast<double>(total_cycles)))
      .i("hbm_bytes", "B", "bytes moved to and from HBM", static_cast<std::int64_t>(total_hbm))
      .f("achieved_flops", "FLOP/s", "2 x MACs / simulated time",
         2.0 * static_cast<double>(total_macs) / (total_ps * 1e-12));
  return res;
}

void register_tpu_chip(Registry& r) {
  SystemFactory f = [](const config::Node& node, const std::string& path) {
    return std::make_unique<TpuChipSystem>(TpuSystemConfig::schema().load(node, path));
  };
  r.add({"tpu_chip", "system", "one TPU-class chip: TensorCores with MXUs, VMEM, CMEM, HBM, DMA",
         &TpuSystemConfig::schema(), f});
  r.add({"mxu",
         "component",
         "systolic matrix unit, fold-level timing equal to its PE-level reference (ws/os/is)",
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
}

}  // namespace systole::models
