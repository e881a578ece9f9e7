#include "models/systems/gpu_node/gpu_node_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace systole::models {

namespace {

using Intervals = std::vector<std::pair<double, double>>;

/// gpu0's kernels' intervals (launch to end), sorted and disjoint (one stream).
Intervals kernel_busy(const std::vector<GpuKernelRun>& runs) {
  Intervals v;
  for (const auto& r : runs) v.emplace_back(r.start_ps, r.end_ps);
  std::sort(v.begin(), v.end());
  return v;
}

/// Length of [b, e) no interval of `busy` covers.
double uncovered(double b, double e, const Intervals& busy) {
  double covered = 0;
  for (const auto& [x, y] : busy) covered += std::max(0.0, std::min(e, y) - std::max(b, x));
  return (e - b) - covered;
}

/// One layer's communication figures (every repeat).
struct Comm {
  double time = 0, bytes = 0, busbw_time = 0, formula = 0, exposed = 0;
  std::string nccl;
  std::int64_t group = 0;
};

void add_comm(stats::Record& r, const Comm& c) {
  r.f("collective_time", "s", "time the layer's collectives ran (first message to last arrival)",
      c.time)
      .f("collective_bytes", "B", "S of the collectives (nccl-tests' size per GPU), summed",
         c.bytes)
      .f("algbw", "B/s", "algorithm bandwidth: S / time (nccl-tests doc/PERFORMANCE.md)",
         c.time > 0 ? c.bytes / c.time : 0)
      .f("busbw", "B/s",
         "bus bandwidth: algbw x 2(p-1)/p (all-reduce) or (p-1)/p (nccl-tests "
         "doc/PERFORMANCE.md)",
         c.time > 0 ? c.busbw_time / c.time : 0)
      .f("collective_formula_time", "s",
         "alpha-beta time on an idle node (models/nvlink/README.md)", c.formula)
      .f("exposed_comm_time", "s", "collective time during which gpu0 ran no kernel", c.exposed)
      .s("nccl", "NCCL's algorithm, protocol and channels", c.nccl)
      .i("group_size", "GPUs", "GPUs per collective group", c.group);
}

Comm comm_of(const NodeCollectiveRun& c, const Intervals& busy, double rep) {
  Comm m;
  const CollectiveResult& r = c.result.result;
  m.time = r.time_s * rep;
  m.bytes = static_cast<double>(c.spec.bytes) * rep;
  m.busbw_time = r.busbw * r.time_s * rep;
  m.formula = r.formula_s * rep;
  m.exposed =
      uncovered(static_cast<double>(c.begin_ps), static_cast<double>(c.end_ps), busy) * 1e-12 * rep;
  m.group = c.group_size;
  if (c.group_size > 1)
    m.nccl = fmt::format("{} {} {}ch", nccl_algorithm_name(c.result.choice.algorithm),
                         nccl_protocol_name(c.result.choice.protocol), c.result.choice.channels);
  return m;
}

stats::Table links_table(const NodeRunView& v, const std::vector<double>& busy_ps, double seconds) {
  stats::Table t("nvlink_links", "one row per NVLink trunk (a GPU's links, one direction)");
  const NvSwitchRoutes& routes = v.node.routes();
  for (int g = 0; g < routes.gpus(); ++g)
    for (int up = 1; up >= 0; --up) {
      const LinkId l = up ? routes.up(static_cast<ChipId>(g)) : routes.down(static_cast<ChipId>(g));
      stats::Record r;
      r.s("link", "trunk", fmt::format("g{}_{}", g, up ? "up" : "down"))
          .i("gpu", "", "the GPU", g)
          .s("direction", "up: GPU to the switches; down: switches to the GPU", up ? "up" : "down")
          .f("bytes", "B", "bytes carried (collectives x their layers' repeats)",
             [&] {
               double b = 0;
               for (std::size_t i = 0; i < v.collectives.size(); ++i)
                 b += static_cast<double>(v.collectives[i].link_bytes[l]) *
                      static_cast<double>(
                          v.program.plan.layers[v.program.collectives[i].layer].layer.repeat);
               return b;
             }())
          .f("busy_time", "s", "time the trunk carried data", busy_ps[l] * 1e-12)
          .f("utilization", "", "busy time / run time",
             seconds > 0 ? busy_ps[l] * 1e-12 / seconds : 0);
      t.append(r);
    }
  return t;
}

stats::Table collectives_table(const NodeRunView& v) {
  stats::Table t("collectives", "one row per collective gpu0's program ran");
  for (std::size_t i = 0; i < v.collectives.size(); ++i) {
    const NodeCollectiveRun& c = v.collectives[i];
    const CollectiveResult& res = c.result.result;
    const bool moved = c.group_size > 1;
    stats::Record r;
    r.s("layer", "its layer", v.program.plan.layers[v.program.collectives[i].layer].layer.name)
        .s("op", "all_reduce, reduce_scatter, all_gather or all_to_all",
           collective_op_name(c.spec.op))
        .s("algorithm", "NCCL's algorithm (ring, nvls, direct)",
           moved ? nccl_algorithm_name(c.result.choice.algorithm) : "none")
        .s("protocol", "NCCL's protocol (LL, LL128, Simple)",
           moved ? nccl_protocol_name(c.result.choice.protocol) : "none")
        .i("channels", "", "NCCL channels (one CTA each)", moved ? c.result.choice.channels : 0)
        .i("group_size", "GPUs", "GPUs per group", c.group_size)
        .i("bytes", "B", "S per GPU (nccl-tests)", static_cast<std::int64_t>(c.spec.bytes))
        .f("time", "s", "first message to last arrival", res.time_s)
        .f("algbw", "B/s", "S / time", res.algbw)
        .f("busbw", "B/s", "algbw x the nccl-tests bus factor", res.busbw)
        .f("formula_time", "s", "alpha-beta time on an idle node", res.formula_s)
        .i("messages", "", "messages of its schedule", static_cast<std::int64_t>(res.messages));
    t.append(r);
  }
  return t;
}

}  // namespace

void write_node_results(const NodeRunView& v, stats::PointResult& res) {
  const GpuDeviceConfig& d = v.device;
  const Intervals busy = kernel_busy(v.kernel_runs);
  const double clock = d.gpu_sm.clock.value();
  const auto& layers = v.program.plan.layers;
  double total = 0, macs = 0, hbm = 0, peak_weighted = 0;
  Comm all;
  std::size_t next = 0;
  const IciLinkTiming& timing = v.node.network().timing();
  std::vector<double> link_busy(v.node.network().link_bytes().size(), 0.0);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::size_t ci = v.program.compute_of[i];
    const double rep = static_cast<double>(layers[i].layer.repeat);
    Comm c;
    GpuLayerRow row;
    if (ci < v.kernels.layers.size()) {
      row = gpu_layer_row(d, v.kernels, v.kernels.layers[ci], v.kernel_runs);
    } else {
      const NodeCollectiveRun& run = v.collectives.at(next++);
      c = comm_of(run, busy, rep);
      workloads::GpuLayerPlan lp;
      lp.layer = layers[i].layer;
      lp.tile = c.nccl.empty() ? "none" : "nccl " + c.nccl;
      row = gpu_layer_row(d, v.kernels, lp, v.kernel_runs,
                          std::ceil(run.result.result.time_s * clock));
      for (std::size_t l = 0; l < link_busy.size(); ++l)
        link_busy[l] += static_cast<double>(run.link_bytes[l]) *
                        static_cast<double>(timing.packet_ps) /
                        static_cast<double>(timing.packet_bytes) * rep;
      all.time += c.time;
      all.bytes += c.bytes;
      all.busbw_time += c.busbw_time;
      all.formula += c.formula;
      all.exposed += c.exposed;
    }
    add_comm(row.record, c);
    total += row.cycles;
    macs += row.macs;
    hbm += row.hbm_bytes;
    peak_weighted += row.compute_bound_cycles;
    res.layers.append(row.record);
  }
  const double seconds = v.run_seconds > 0 ? v.run_seconds : total / clock;
  if (v.run_seconds > 0) total = seconds * clock;
  const auto gpus = static_cast<double>(v.cfg.nvlink.gpus);
  const auto deg = v.cfg.degrees();
  double max_util = 0;
  for (double b : link_busy) max_util = std::max(max_util, seconds > 0 ? b * 1e-12 / seconds : 0);
  res.metrics
      .i("total_cycles", "cycles", "simulated SM cycles of all layers, collectives included",
         static_cast<std::int64_t>(total))
      .f("time", "s", "simulated time", seconds)
      .f("sm_clock", "Hz", "the SM clock the program ran at (power-limited when boost_clock > 0)",
         clock)
      .f("mac_utilization", "", "MAC-weighted tensor utilisation: compute bound / cycles",
         total > 0 ? peak_weighted / total : 0)
      .f("achieved_flops", "FLOP/s", "each GPU's: 2 x gpu0's useful MACs / simulated time",
         seconds > 0 ? 2 * macs / seconds : 0)
      .i("hbm_bytes", "B", "bytes gpu0 moved to and from its HBM", static_cast<std::int64_t>(hbm))
      .i("gpus", "", "GPUs on the node", static_cast<std::int64_t>(gpus))
      .i("data", "", "data-parallel ways", deg.data)
      .i("tensor", "", "tensor-parallel ways", deg.tensor)
      .i("collectives", "", "collectives gpu0's program ran",
         static_cast<std::int64_t>(v.collectives.size()));
  add_comm(res.metrics, all);
  res.metrics.f("max_link_utilization", "", "busiest NVLink trunk's busy time / run time",
                max_util);
  res.units.push_back(links_table(v, link_busy, seconds));
  if (!v.collectives.empty()) res.units.push_back(collectives_table(v));
}

double PipelineFigures::bubble() const {
  if (stages.empty() || seconds <= 0) return 0;
  double idle = 0;
  for (const auto& s : stages) idle += s.idle_s;
  return idle / (static_cast<double>(stages.size()) * seconds);
}

void write_pipeline_results(const PipelineFigures& f, stats::PointResult& res) {
  double bytes = 0, time = 0;
  for (const auto& s : f.stages) bytes += s.send_bytes, time += s.send_s;
  const auto p = static_cast<double>(f.stages.size());
  res.metrics.i("pipeline", "", "pipeline stages", static_cast<std::int64_t>(f.stages.size()))
      .i("microbatches", "", "GPipe micro-batches", f.microbatches)
      .f("pipeline_bubble", "",
         "fraction of stage-time idle: sum over stages of idle time / (stages x run time) (GPipe, "
         "arXiv 1811.06965, §2.2)",
         f.bubble())
      .f("pipeline_bubble_formula", "", "GPipe's bubble for equal stages: (P - 1) / (M + P - 1)",
         (p - 1) / (static_cast<double>(f.microbatches) + p - 1))
      .f("p2p_bytes", "B",
         "stage hand-offs: bytes each sending GPU sent, summed over stages and "
         "micro-batches",
         bytes)
      .f("p2p_time", "s", "stage hand-offs: send to arrival, summed over stages and micro-batches",
         time);
  stats::Table t("pipeline_stages", "one row per pipeline stage, whole run");
  for (std::size_t i = 0; i < f.stages.size(); ++i) {
    const PipelineStageFigures& s = f.stages[i];
    stats::Record r;
    r.s("stage", "stage", "stage" + std::to_string(i))
        .i("first_gpu", "", "its first GPU", s.first_gpu)
        .i("gpus", "", "its GPUs (data x tensor)", s.gpus)
        .f("busy_time", "s",
           "from the start to its last kernel or collective, less its waits for the stage before",
           s.busy_s)
        .f("idle_time", "s", "run time less busy time", s.idle_s)
        .i("layers", "", "layers of one micro-batch, per GPU", static_cast<std::int64_t>(s.layers))
        .f("macs", "", "MACs per GPU, all micro-batches", s.macs)
        .f("weights", "B", "weight bytes per GPU", s.weights)
        .f("p2p_bytes", "B", "bytes each GPU sent to its peer in the next stage", s.send_bytes)
        .f("p2p_time", "s", "its hand-offs, send to arrival, summed", s.send_s)
        .f("sm_clock", "Hz", "the SM clock its GPUs settled at (power-limited)", s.sm_clock);
    t.append(r);
  }
  res.units.push_back(std::move(t));
}

}  // namespace systole::models
