// gpu_node with pipeline stages (parallel.pipeline > 1): GPipe (Huang et al., arXiv 1811.06965,
// §2.2) over the node's GPUs. Stage s holds GPUs s x (data x tensor) ... (s+1) x (data x
// tensor) - 1; SPMD symmetry holds within a stage, so one GPU per stage is simulated
// (`stage<s>`, a full GpuDeviceModule), all of them under the point's one sc_start. A stage's
// collectives run on its own GPUs' trunks (a network of the stage's GPUs: the stages' GPUs are
// disjoint and the NVSwitch fabric has no capacity limit); each hand-off is every GPU of the
// stage sending the stage's output to its peer in the next stage (the same place in its stage),
// timed on the idle node network.

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "models/ici/ici_schedule.h"
#include "models/systems/gpu_device/gpu_device_module.h"
#include "models/systems/gpu_device/gpu_device_trace.h"
#include "models/systems/gpu_node/gpu_node_stats.h"
#include "models/systems/gpu_node/gpu_node_system.h"
#include "sim/core/error.h"
#include "sim/core/units.h"
#include "sim/stats/summary.h"

namespace systole::models {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

std::string bytes_text(std::uint64_t b) {
  return format_quantity(static_cast<double>(b), Dimension::kBytes);
}

/// The node's GPUs per stage: data x tensor.
int stage_gpus(const GpuNodeConfig& c) {
  const auto d = c.degrees();
  return static_cast<int>(d.data * d.tensor);
}

/// Picoseconds for every GPU of stage `s` to send `bytes` to its peer in stage s+1, all at once,
/// on the idle node network (NVLink trunks and switch latencies; NCCL's send/recv software
/// latency is not included).
std::uint64_t handoff_ps(const NvlinkConfig& nv, int per_stage, std::size_t s,
                         std::uint64_t bytes) {
  const NvSwitchRoutes routes(static_cast<int>(nv.gpus));
  const std::unique_ptr<IciNetwork> net = make_nvlink_network(nv, routes);
  IciSchedule sched;
  const auto first = static_cast<ChipId>(s * static_cast<std::size_t>(per_stage));
  for (int g = 0; g < per_stage; ++g)
    sched.add(first + static_cast<ChipId>(g), first + static_cast<ChipId>(per_stage + g), bytes);
  return run_schedule(*net, sched, 0).end_ps;
}

/// `np` and `prog` (one micro-batch) repeated for `micro` micro-batches: layers named
/// `mb<j>.<layer>`, kernels and collective slots in stream order.
void repeat_microbatches(GpuNodeProgram& np, workloads::GpuProgram& prog, std::int64_t micro) {
  const GpuNodeProgram one = np;
  const workloads::GpuProgram once = prog;
  const std::size_t kernels = once.kernels.size(), layers = one.plan.layers.size();
  const std::size_t compute = one.compute.size();
  np.plan.layers.clear();
  np.compute.clear();
  np.compute_of.clear();
  np.collectives.clear();
  prog.kernels.clear();
  prog.layers.clear();
  for (std::size_t j = 0; j < static_cast<std::size_t>(micro); ++j) {
    const std::string mb = fmt::format("mb{}.", j);
    for (auto l : one.plan.layers) {
      l.layer.name = mb + l.layer.name;
      np.plan.layers.push_back(std::move(l));
    }
    for (auto l : one.compute) {
      l.name = mb + l.name;
      np.compute.push_back(std::move(l));
    }
    for (std::size_t c : one.compute_of) np.compute_of.push_back(c == kNone ? c : c + j * compute);
    for (auto slot : one.collectives) {
      slot.layer += j * layers;
      slot.kernel += j * kernels;
      np.collectives.push_back(slot);
    }
    prog.kernels.insert(prog.kernels.end(), once.kernels.begin(), once.kernels.end());
    for (auto l : once.layers) {
      l.layer.name = mb + l.layer.name;
      for (auto& k : l.kernels) k += j * kernels;
      prog.layers.push_back(std::move(l));
    }
  }
}

/// A micro-batch's activations on their way to a stage: sent (and when they arrive).
struct Handoff {
  bool sent = false;
  std::uint64_t arrive_ps = 0;
  sc_core::sc_event sent_event;
};

/// One stage's simulated GPU and what it ran.
struct StageSim {
  GpuNodeProgram program;
  GpuSettledProgram settled;
  std::size_t kernels_per_micro = 0;
  std::unique_ptr<NodeCollectives> node;
  std::unique_ptr<GpuDeviceModule> gpu;
  std::vector<GpuKernelRun> runs;
  std::vector<NodeCollectiveRun> collectives;
  double wait_ps = 0, send_ps = 0, end_ps = 0;
  std::uint64_t send_bytes = 0, handoff_ps = 0;
  std::size_t sends = 0;
};

/// The stream hook of stage `s`: before kernel k, the collectives of earlier micro-batches that
/// sit there, then at a micro-batch boundary the send of the one just finished and the wait for
/// the next one's input, then the collectives of the micro-batch that starts.
class StageStream {
 public:
  StageStream(std::vector<std::unique_ptr<StageSim>>& sims, std::vector<std::vector<Handoff>>& h,
              std::size_t s, std::int64_t micro)
      : sims_(sims), handoffs_(h), s_(s), micro_(static_cast<std::size_t>(micro)) {}

  void operator()(std::size_t k) {
    StageSim& me = *sims_[s_];
    SYSTOLE_ASSERT(me.kernels_per_micro > 0, "a pipeline stage without kernels");
    const std::size_t per = me.kernels_per_micro, j = k / per, layers = layers_per_micro();
    const bool boundary = k % per == 0;
    while (next_ < me.program.collectives.size() && me.program.collectives[next_].kernel == k &&
           me.program.collectives[next_].layer / layers < j)
      collective();
    if (boundary && j > 0 && s_ + 1 < sims_.size()) send(j - 1);
    if (boundary && j < micro_ && s_ > 0) receive(j);
    while (next_ < me.program.collectives.size() && me.program.collectives[next_].kernel == k)
      collective();
    me.end_ps = now_ps();
  }

 private:
  static std::uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
  std::size_t layers_per_micro() const { return sims_[s_]->program.plan.layers.size() / micro_; }

  void collective() {
    StageSim& me = *sims_[s_];
    const NodeCollectiveSlot& slot = me.program.collectives[next_++];
    const std::uint64_t t0 = now_ps();
    me.collectives.push_back(me.node->run(slot.spec, slot.group_size, t0));
    sc_core::wait(
        sc_core::sc_time(static_cast<double>(me.collectives.back().end_ps - t0), sc_core::SC_PS));
  }

  void send(std::size_t j) {
    StageSim& me = *sims_[s_];
    Handoff& h = handoffs_[s_ + 1][j];
    h.sent = true;
    h.arrive_ps = now_ps() + me.handoff_ps;
    h.sent_event.notify(sc_core::SC_ZERO_TIME);
    me.send_ps += static_cast<double>(me.handoff_ps);
    ++me.sends;
  }

  void receive(std::size_t j) {
    Handoff& h = handoffs_[s_][j];
    const std::uint64_t from = now_ps();
    if (!h.sent) sc_core::wait(h.sent_event);
    if (now_ps() < h.arrive_ps)
      sc_core::wait(sc_core::sc_time(static_cast<double>(h.arrive_ps - now_ps()), sc_core::SC_PS));
    sims_[s_]->wait_ps += static_cast<double>(now_ps() - from);
  }

  std::vector<std::unique_ptr<StageSim>>& sims_;
  std::vector<std::vector<Handoff>>& handoffs_;
  std::size_t s_, micro_, next_ = 0;
};

}  // namespace

workloads::PipelinePlan GpuNodeSystem::pipeline_plan(const workloads::Workload& w) const {
  // GPUs of a node: a tensor split over the one NVLink domain.
  return workloads::checked_pipeline_plan(w.layers, cfg_.degrees(), cfg_.parallel.microbatches,
                                          {{true, false, false}});
}

GpuNodeProgram GpuNodeSystem::stage_program(const workloads::PipelinePlan& p, std::size_t s) const {
  const auto d = cfg_.degrees();
  const int per_stage = stage_gpus(cfg_);
  GpuNodeProgram np = node_program(p.stages.at(s).plan, d, per_stage);
  // Memory: the stage's weights, the KV caches of all micro-batches, one layer's activations.
  const std::uint64_t capacity = cfg_.gpu.device.hbm.capacity.value();
  std::uint64_t weights = 0, kv = 0;
  for (const auto& l : np.plan.layers) {
    weights += workloads::footprint(l.layer).weights;
    kv += workloads::footprint(l.layer).kv_cache * static_cast<std::uint64_t>(p.microbatches);
  }
  for (const auto& l : np.plan.layers) {
    const std::uint64_t act = workloads::footprint(l.layer).activations;
    if (weights + kv + act > capacity)
      throw WorkloadError(fmt::format(
          "pipeline stage {} does not fit GPU {}'s HBM (every GPU of the stage holds the same): "
          "the stage's weights {} + KV cache {} ({} micro-batches) + layer '{}''s activations {} "
          "= {} > {}",
          s, s * static_cast<std::size_t>(per_stage), bytes_text(weights), bytes_text(kv),
          p.microbatches, l.layer.name, bytes_text(act), bytes_text(weights + kv + act),
          bytes_text(capacity)));
  }
  if (np.compute.empty())
    throw WorkloadError(fmt::format(
        "pipeline stage {} has no compute layer (only collectives); use fewer stages", s));
  return np;
}

stats::PointResult GpuNodeSystem::run_pipeline(const workloads::Workload& w,
                                               const RunOptions& opt) {
  const workloads::PipelinePlan plan = pipeline_plan(w);
  const std::size_t stages = plan.stages.size();
  const int per_stage = stage_gpus(cfg_);
  NvlinkConfig stage_nv = cfg_.nvlink;
  stage_nv.gpus = per_stage;
  std::vector<std::unique_ptr<StageSim>> sims;
  std::vector<std::vector<Handoff>> handoffs(stages);
  for (auto& h : handoffs) h = std::vector<Handoff>(static_cast<std::size_t>(plan.microbatches));
  stats::PointResult res;
  res.trace.enabled = opt.trace;
  TraceRecorder rec(&res.trace);
  for (std::size_t s = 0; s < stages; ++s) {
    auto sim = std::make_unique<StageSim>();
    sim->program = stage_program(plan, s);
    sim->settled = compile_settled(cfg_.gpu, sim->program.compute);
    place_collectives(sim->program, sim->settled.program);
    sim->kernels_per_micro = sim->settled.program.kernels.size();
    repeat_microbatches(sim->program, sim->settled.program, plan.microbatches);
    sim->send_bytes = plan.stages[s].send_bytes;
    if (s + 1 < stages) sim->handoff_ps = handoff_ps(cfg_.nvlink, per_stage, s, sim->send_bytes);
    sim->node = std::make_unique<NodeCollectives>(stage_nv);
    sim->gpu =
        std::make_unique<GpuDeviceModule>(fmt::format("stage{}", s).c_str(), sim->settled.device);
    sims.push_back(std::move(sim));
  }
  StageSim& last = *sims.back();
  if (rec.on()) last.gpu->set_trace(&rec, kernel_layers(last.settled.program));
  for (std::size_t s = 0; s < stages; ++s) {
    sims[s]->gpu->set_stream_hook(StageStream(sims, handoffs, s, plan.microbatches));
    sims[s]->gpu->load(sims[s]->settled.program.kernels, sims[s]->runs);
  }
  const double start_ps = sc_core::sc_time_stamp().to_seconds() * 1e12;
  sc_core::sc_start();  // every stage's stream: until no event is pending
  for (const auto& s : sims)
    if (s->runs.size() != s->settled.program.kernels.size())
      throw SimError("gpu_node: a pipeline stage stopped before its last kernel (deadlock)");
  double end_ps = start_ps;
  for (const auto& s : sims) end_ps = std::max(end_ps, s->end_ps);
  const double seconds = (end_ps - start_ps) * 1e-12;
  if (rec.on()) {
    trace_kernels(rec, last.gpu->name(), *last.gpu, last.settled.program, last.runs);
    trace_to_cycles(res.trace, static_cast<double>(last.gpu->sms().period().value()));
    res.trace.clock = last.settled.device.gpu_sm.clock.value();
  }
  NodeRunView view{cfg_,      last.program,     last.settled.device, last.settled.program,
                   last.runs, last.collectives, *last.node};
  view.run_seconds = seconds;
  write_node_results(view, res);
  PipelineFigures fig;
  fig.microbatches = plan.microbatches;
  fig.seconds = seconds;
  for (std::size_t s = 0; s < stages; ++s) {
    const StageSim& sim = *sims[s];
    PipelineStageFigures f;
    f.first_gpu = static_cast<int>(s) * per_stage;
    f.gpus = per_stage;
    f.busy_s = (sim.end_ps - start_ps - sim.wait_ps) * 1e-12;
    f.idle_s = seconds - f.busy_s;
    f.layers = plan.stages[s].plan.layers.size();
    for (const auto& l : plan.stages[s].plan.layers) {
      f.macs += static_cast<double>(l.layer.macs()) * static_cast<double>(l.layer.repeat) *
                static_cast<double>(plan.microbatches);
      f.weights += static_cast<double>(workloads::footprint(l.layer).weights);
    }
    f.send_bytes = static_cast<double>(sim.send_bytes) * static_cast<double>(sim.sends);
    f.send_s = sim.send_ps * 1e-12;
    f.sm_clock = sim.settled.device.gpu_sm.clock.value();
    fig.stages.push_back(f);
  }
  write_pipeline_results(fig, res);
  return res;
}

std::string GpuNodeSystem::plan_pipeline(const workloads::Workload& w) const {
  const workloads::PipelinePlan p = pipeline_plan(w);
  const auto d = cfg_.degrees();
  const int per_stage = stage_gpus(cfg_);
  const auto pp = static_cast<double>(d.pipeline);
  std::string out = fmt::format(
      "{}-GPU NVSwitch node, data {} x tensor {} x pipeline {}, {} micro-batches; stage s on GPUs "
      "s x {} .. s x {} + {} (tensor groups: consecutive GPUs). One GPU simulated per stage (SPMD "
      "within a stage); each stage's collectives on its GPUs' NVLink trunks.\n"
      "GPipe schedule (Huang et al., arXiv 1811.06965, 2.2): stage s starts micro-batch j once "
      "stage s-1 has sent it and stage s has finished j-1; bubble for equal stages "
      "(P - 1) / (M + P - 1) = {:.3f}.\n",
      cfg_.nvlink.gpus, d.data, d.tensor, d.pipeline, p.microbatches, per_stage, per_stage,
      per_stage - 1, (pp - 1) / (static_cast<double>(p.microbatches) + pp - 1));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    const auto& st = p.stages[s];
    double macs = 0, weights = 0;
    for (const auto& l : st.plan.layers) {
      macs += static_cast<double>(l.layer.macs()) * static_cast<double>(l.layer.repeat);
      weights += static_cast<double>(workloads::footprint(l.layer).weights);
    }
    std::string sends = "-";
    if (s + 1 < p.stages.size())
      sends = fmt::format(
          "{} per GPU per micro-batch, {} on an idle node", bytes_text(st.send_bytes),
          format_quantity(
              static_cast<double>(handoff_ps(cfg_.nvlink, per_stage, s, st.send_bytes)) * 1e-12,
              Dimension::kTime));
    rows.push_back(
        {std::to_string(s),
         fmt::format("{}-{}", s * static_cast<std::size_t>(per_stage),
                     (s + 1) * static_cast<std::size_t>(per_stage) - 1),
         fmt::format("{}..{}", w.layers[st.range.first].name, w.layers[st.range.end - 1].name),
         fmt::format("{:.4g}", macs), format_quantity(weights, Dimension::kBytes), sends});
  }
  out += stats::format_table(
      {"stage", "GPUs", "layers", "MACs/GPU/micro-batch", "weights/GPU", "sends to next stage"},
      rows);
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    const GpuNodeProgram np = stage_program(p, s);
    out += fmt::format("\nstage {}: one micro-batch per GPU\n", s);
    out += layer_table(np);
    out += workloads::describe_gpu_program(
        cfg_.gpu.device, workloads::compile_gpu(cfg_.gpu.device, np.compute, cfg_.gpu.mapping));
  }
  return out;
}

}  // namespace systole::models
