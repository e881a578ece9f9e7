#include "models/systems/gpu_device/gpu_device_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "models/systems/gpu_device/gpu_device_module.h"
#include "models/systems/gpu_device/gpu_device_settle.h"
#include "models/systems/gpu_device/gpu_device_trace.h"

namespace systole::models {

namespace {

const config::SchemaOf<workloads::GpuMappingOptions>& gpu_mapping_schema() {
  static const config::SchemaOf<workloads::GpuMappingOptions> s = [] {
    using O = workloads::GpuMappingOptions;
    config::SchemaOf<O> b("gpu_mapping", "how GEMMs map onto the GPU (CUTLASS/cuBLAS choices)");
    b.boolean("split_k", &O::split_k, true,
              "split K over several CTAs when the output tiles fill less than one wave")
        .boolean("stream_k", &O::stream_k, false,
                 "also consider stream-K kernels (persistent CTAs sharing K evenly)")
        .integer("max_split_k", &O::max_split_k, 16, 2, 64, "most K slices of a split-K kernel", "")
        .integer("split_k_slices", &O::split_k_slices, 0, 0, 64,
                 "> 0: only split-K kernels of this many K slices (1: no split; a named vendor "
                 "kernel's), when K has that many k-tiles (0: the mapper chooses)",
                 "")
        .integer("tile_m", &O::tile_m, 0, 0, 512, "only CTA tiles of this many rows (0: any)", "")
        .integer("tile_n", &O::tile_n, 0, 0, 512, "only CTA tiles of this many columns (0: any)",
                 "")
        .integer("tile_k", &O::tile_k, 0, 0, 256,
                 "k-tiles of this many elements, a multiple of the tensor instruction's K (0: the "
                 "candidate's 128 bytes of each row on Hopper, 64 or 128 on Ampere)",
                 "")
        .integer("cluster_m", &O::cluster_m, 0, 0, 4,
                 "Hopper: CTAs per thread-block cluster along M, sharing B by TMA multicast; "
                 "must divide the grid's tile rows and the SM count (0: the mapper chooses, 2 "
                 "when the tile rows are even and the kernel is not stream-K)",
                 "")
        .integer("stages", &O::stages, 0, 0, 16,
                 "only kernels with this many pipeline stages (0: the mapper chooses)", "")
        .integer(
            "warps_m", &O::warps_m, 0, 0, 8,
            "only warp grids (Ampere) or consumer-warpgroup grids (Hopper) with this many "
            "along M; with warps_n, tile_m and tile_n set, that CTA runs even when it is not a "
            "built-in candidate (0: any)",
            "")
        .integer("warps_n", &O::warps_n, 0, 0, 8,
                 "only warp or consumer-warpgroup grids with this many along N (0: any)", "")
        .choice("attention", &O::attention,
                {{"flash", O::Attention::kFlash}, {"unfused", O::Attention::kUnfused}}, "flash",
                "attention layers as one FlashAttention kernel, or unfused (QK^T GEMM, softmax "
                "kernel, PV GEMM)")
        .boolean("force_fa2", &O::force_fa2, false,
                 "run FlashAttention-2 on sm_90 too (PyTorch's flash backend) instead of FA-3")
        .boolean("fa2_fast_math", &O::fa2_fast_math, false,
                 "FlashAttention-2 as the flash-attn package builds it (--use_fast_math: FFMA + "
                 "MUFU.EX2 per score) instead of PyTorch's build (UNFUSE_FMA, IEEE exp2f)");
    return b;
  }();
  return s;
}

std::uint64_t u(double v) { return static_cast<std::uint64_t>(v); }

/// One layer's figures over its kernels (each simulated once; `repeat` multiplies them).
struct LayerSums {
  double cycles = 0;
  std::uint64_t hbm_bytes = 0, sector_hits = 0, sector_accesses = 0, tensor_busy = 0;
  std::uint64_t smem_busy = 0;
  std::int64_t waves = 0, ctas_per_sm = 0;
};

LayerSums sum_layer(const GpuDeviceConfig& d, const workloads::GpuProgram& p,
                    const workloads::GpuLayerPlan& lp, const std::vector<GpuKernelRun>& runs,
                    double extra_cycles) {
  LayerSums s;
  s.cycles = extra_cycles;
  const double gap = d.cycles(d.inter_kernel_gap);
  for (size_t k : lp.kernels) {
    const GpuKernelRun& r = runs[k];
    s.cycles += std::ceil((r.end_ps - r.start_ps) * 1e-12 * d.gpu_sm.clock.value()) + gap;
    // What the L2 asked of the HBM while the kernel ran: sectors fetched and written back.
    const std::uint64_t sector = d.l2.sector.value();
    s.hbm_bytes += (r.l2_after.sectors_fetched - r.l2_before.sectors_fetched +
                    r.l2_after.writeback_sectors - r.l2_before.writeback_sectors) *
                   sector;
    s.sector_hits += r.l2_after.sector_hits - r.l2_before.sector_hits;
    s.sector_accesses += r.l2_after.sector_accesses - r.l2_before.sector_accesses;
    for (const auto& a : r.gemm.sms) {
      s.tensor_busy += a.tensor_busy;
      s.smem_busy += a.smem_busy;
    }
    // The FlashAttention record counts one sub-partition per SM (all of them run alike).
    const auto sps = static_cast<std::uint64_t>(d.gpu_sm.sub_partitions);
    for (const auto b : r.flash.tensor_busy) s.tensor_busy += b * sps;
    for (const auto b : r.flash.smem_busy) s.smem_busy += b * sps;
    const auto kind = p.kernels[k].kind;
    if (kind == workloads::GpuKernel::Kind::kGemm && s.waves == 0) {
      s.waves = p.kernels[k].gemm.waves;
      s.ctas_per_sm = r.gemm.resident;
    }
    if (kind == workloads::GpuKernel::Kind::kAttention && s.waves == 0) {
      s.waves = p.kernels[k].flash.waves;
      s.ctas_per_sm = r.flash.resident;
    }
  }
  return s;
}

stats::Record layer_record(const GpuDeviceConfig& d, const workloads::GpuLayerPlan& lp,
                           const LayerSums& s) {
  const auto& l = lp.layer;
  const double rep = static_cast<double>(l.repeat);
  const double cycles = s.cycles * rep;
  const double seconds = cycles / d.gpu_sm.clock.value();
  const double macs = static_cast<double>(lp.macs) * rep;
  const double peak_macs =
      lp.compute_bound_cycles > 0 ? static_cast<double>(lp.macs) / lp.compute_bound_cycles : 0;
  const double hbm = static_cast<double>(s.hbm_bytes) * rep;
  const double roof = std::max(lp.compute_bound_cycles, lp.hbm_bound_cycles) * rep;
  const double sp_cycles = s.cycles * static_cast<double>(d.sms * d.gpu_sm.sub_partitions);
  stats::Record r;
  r.s("layer", "layer name", l.name)
      .s("op", "layer operation", workloads::layer_op_name(l.op))
      .s("shape", "layer shape", l.shape())
      .s("tile", "CTA tile of the main kernel (bm x bn x bk / stages, warps, CTAs per SM, ...)",
         lp.tile)
      .i("repeat", "", "times the layer runs in a row (all figures cover every repeat)", l.repeat)
      .i("kernels", "", "kernels the layer launches (each repeat)",
         static_cast<std::int64_t>(lp.kernels.size()))
      .i("macs", "MAC", "useful multiply-accumulates", static_cast<std::int64_t>(macs))
      .i("cycles", "cycles", "simulated SM cycles, launch overheads and gaps included",
         static_cast<std::int64_t>(cycles))
      .f("time", "s", "simulated time", seconds)
      .f("mac_utilization", "", "useful MACs / (peak MACs per cycle x cycles)",
         peak_macs > 0 && cycles > 0 ? macs / (peak_macs * cycles) : 0)
      .f("tensor_utilization", "", "tensor-pipe busy cycles / (sub-partitions x cycles)",
         sp_cycles > 0 ? static_cast<double>(s.tensor_busy) / sp_cycles : 0)
      .f("smem_utilization", "",
         "shared-memory bank busy cycles charged (ldmatrix and other shared loads and stores, "
         "cp.async writes; not TMA writes or wgmma operand reads) / (sub-partitions x cycles)",
         sp_cycles > 0 ? static_cast<double>(s.smem_busy) / sp_cycles : 0)
      .i("waves", "", "waves of CTAs over the SMs (main kernel)", s.waves)
      .i("ctas_per_sm", "", "CTAs resident per SM (main kernel)", s.ctas_per_sm)
      .f("l2_hit_rate", "", "L2 sector hits / sector accesses",
         s.sector_accesses > 0
             ? static_cast<double>(s.sector_hits) / static_cast<double>(s.sector_accesses)
             : 0)
      .i("hbm_bytes", "B", "bytes moved to and from HBM", static_cast<std::int64_t>(hbm))
      .f("hbm_bandwidth", "B/s", "achieved HBM bandwidth", seconds > 0 ? hbm / seconds : 0)
      .i("compulsory_bytes", "B", "inputs read once and output written once",
         static_cast<std::int64_t>(static_cast<double>(lp.compulsory_bytes) * rep))
      .f("arithmetic_intensity", "FLOP/B", "FLOPs per compulsory byte",
         lp.compulsory_bytes > 0
             ? 2.0 * static_cast<double>(lp.macs) / static_cast<double>(lp.compulsory_bytes)
             : 0)
      .f("achieved_flops", "FLOP/s", "2 x useful MACs / simulated time",
         seconds > 0 ? 2 * macs / seconds : 0)
      .f("compute_bound_cycles", "cycles", "MACs / peak tensor MACs per cycle",
         lp.compute_bound_cycles * rep)
      .f("hbm_bound_cycles", "cycles", "compulsory bytes / peak HBM bandwidth",
         lp.hbm_bound_cycles * rep)
      .f("roofline_cycles", "cycles", "max(compute, HBM bounds)", roof)
      .s("bound", "resource that bounds the roofline (none: a layer without kernels)",
         lp.kernels.empty()                               ? "none"
         : lp.compute_bound_cycles >= lp.hbm_bound_cycles ? "compute"
                                                          : "hbm")
      .f("roofline_fraction", "", "roofline cycles / simulated cycles",
         cycles > 0 ? roof / cycles : 0);
  return r;
}

}  // namespace

const config::SchemaOf<GpuSystemConfig>& GpuSystemConfig::schema() {
  static const config::SchemaOf<GpuSystemConfig> s = [] {
    config::SchemaOf<GpuSystemConfig> b("gpu_device", "one GPU with its L2 and HBM");
    b.group("device", &GpuSystemConfig::device, GpuDeviceConfig::schema(), "the GPU")
        .group("mapping", &GpuSystemConfig::mapping, gpu_mapping_schema(), "mapping choices")
        .integer("warmup", &GpuSystemConfig::warmup, 0, 0, 4,
                 "passes of the whole kernel stream simulated before the measured one and not "
                 "reported, as a benchmark's warm-up calls: the measured pass finds in the L2 "
                 "what the previous pass left (0: it starts with an empty L2) except a repeated "
                 "layer's weights (each pass runs its next instance), and under the power model "
                 "runs at the clock the previous pass's simulated power allows",
                 "passes")
        .ignore("kind");
    return b;
  }();
  return s;
}

workloads::GpuProgram GpuDeviceSystem::compile(const workloads::Workload& w) const {
  return workloads::compile_gpu(cfg_.device, w.layers, cfg_.mapping);
}

void GpuDeviceSystem::check(const workloads::Workload& w) const { compile(w); }

std::string GpuDeviceSystem::plan(const workloads::Workload& w) const {
  return workloads::describe_gpu_program(cfg_.device, compile(w));
}

GpuLayerRow gpu_layer_row(const GpuDeviceConfig& d, const workloads::GpuProgram& p,
                          const workloads::GpuLayerPlan& lp, const std::vector<GpuKernelRun>& runs,
                          double extra_cycles) {
  const LayerSums s = sum_layer(d, p, lp, runs, extra_cycles);
  const double rep = static_cast<double>(lp.layer.repeat);
  GpuLayerRow row;
  row.record = layer_record(d, lp, s);
  row.cycles = s.cycles * rep;
  row.macs = static_cast<double>(lp.macs) * rep;
  row.hbm_bytes = static_cast<double>(s.hbm_bytes) * rep;
  row.compute_bound_cycles = lp.compute_bound_cycles * rep;
  return row;
}

namespace {

/// The measured pass's kernel runs, and when it started (ps).
struct WarmRuns {
  std::vector<GpuKernelRun> runs;
  double start_ps = 0;
};

/// Runs the program's kernels `warmup` + 1 times in one stream (one sc_start) and keeps the
/// last pass's runs: the warm-up passes leave the L2 as back-to-back calls of a benchmark do,
/// and under the power model each moves the clock for the next (PowerSettler).
WarmRuns run_with_warmup(GpuDeviceModule& top, TraceRecorder& rec, PowerSettler& settler,
                         std::int64_t warmup) {
  top.set_trace(&rec, {});  // each pass gives its kernels' layers
  auto passes = top.run_passes(static_cast<size_t>(warmup) + 1,
                               [&](size_t p, const std::vector<GpuKernelRun>& previous) {
                                 return settler.next(p, previous, top);
                               });
  WarmRuns out;
  out.runs = std::move(passes.back());
  out.start_ps = out.runs.empty() ? 0 : out.runs.front().start_ps;
  return out;
}

/// Keeps the trace events that begin at or after `start_ps` (the measured pass), from 0.
void drop_before(stats::Trace& t, double start_ps) {
  const auto start = static_cast<std::uint64_t>(std::llround(start_ps));
  if (start == 0) return;
  std::vector<stats::TraceEvent> kept;
  for (auto e : t.events)
    if (e.begin >= start) {
      e.begin -= start;
      e.end -= start;
      kept.push_back(e);
    }
  t.events = std::move(kept);
}

}  // namespace

stats::PointResult GpuDeviceSystem::run(const workloads::Workload& w, const RunOptions& opt) {
  PowerSettler settler(cfg_, w.layers);
  stats::PointResult res;
  res.trace.enabled = opt.trace;
  TraceRecorder rec(&res.trace);
  GpuDeviceModule top("gpu0", settler.current().device);
  const WarmRuns warm = run_with_warmup(top, rec, settler, cfg_.warmup);
  // The measured pass's device and program (its clock may differ from the first pass's).
  const GpuDeviceConfig& d = settler.current().device;
  const workloads::GpuProgram& prog = settler.current().program;
  const std::vector<GpuKernelRun>& runs = warm.runs;
  if (rec.on()) {
    trace_kernels(rec, top.name(), top, prog, runs);
    drop_before(res.trace, warm.start_ps);
    trace_to_cycles(res.trace, static_cast<double>(top.sms().period().value()));
    res.trace.clock = d.gpu_sm.clock.value();
  }

  double total = 0, macs = 0, hbm = 0, peak_weighted = 0;
  for (const auto& lp : prog.layers) {
    const GpuLayerRow row = gpu_layer_row(d, prog, lp, runs);
    total += row.cycles;
    macs += row.macs;
    hbm += row.hbm_bytes;
    peak_weighted += row.compute_bound_cycles;
    res.layers.append(row.record);
  }
  const double seconds = total / d.gpu_sm.clock.value();
  res.metrics.i("total_cycles", "cycles", "simulated SM cycles of all layers", u(total))
      .f("time", "s", "simulated time", seconds)
      .f("sm_clock", "Hz", "the SM clock the program ran at (power-limited when boost_clock > 0)",
         d.gpu_sm.clock.value())
      .f("mac_utilization", "", "MAC-weighted tensor utilisation: compute bound / cycles",
         total > 0 ? peak_weighted / total : 0)
      .f("achieved_flops", "FLOP/s", "2 x useful MACs / simulated time",
         seconds > 0 ? 2 * macs / seconds : 0)
      .i("hbm_bytes", "B", "bytes moved to and from HBM", static_cast<std::int64_t>(hbm));
  return res;
}

Peaks GpuDeviceSystem::peaks() const {
  const GpuDeviceConfig& d = cfg_.device;
  return {2 * d.peak_fma_per_second(TcType::kBf16), d.hbm.bandwidth.value(), d.tdp_watts};
}

void register_gpu_device(Registry& r) {
  SystemFactory f = [](const config::Node& node, const std::string& path) {
    return std::make_unique<GpuDeviceSystem>(GpuSystemConfig::schema().load(node, path));
  };
  r.add({"gpu_device", "system",
         "one GPU (A100/H100-class): SMs with tensor-core main loops, L2 with tags, HBM",
         &GpuSystemConfig::schema(), f});
  r.add({"gpu_sm",
         "component",
         "GPU streaming multiprocessor: tile-level CTA main loop (model: tile), or its "
         "warp-instruction-level reference (model: warp), cycle for cycle equal",
         &GpuSmConfig::schema(),
         {}});
  r.add({"l2",
         "component",
         "GPU L2: partitions, slices, sectored tags, crossbar, far penalty",
         &L2Config::schema(),
         {}});
}

}  // namespace systole::models
