#include "models/systems/gpu_node/gpu_node_system.h"

#include <fmt/format.h>

#include <limits>
#include <memory>

#include "models/systems/gpu_device/gpu_device_module.h"
#include "models/systems/gpu_device/gpu_device_trace.h"
#include "models/systems/gpu_node/gpu_node_stats.h"
#include "sim/core/error.h"
#include "sim/core/units.h"

namespace systole::models {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

std::string node_text(const GpuNodeConfig& c) {
  const auto d = c.degrees();
  return d.pipeline > 1
             ? fmt::format("{}-GPU node (data {} x tensor {} x pipeline {})", c.nvlink.gpus, d.data,
                           d.tensor, d.pipeline)
             : fmt::format("{}-GPU node (data {} x tensor {})", c.nvlink.gpus, d.data, d.tensor);
}

/// The NCCL collective of layer `l`; throws WorkloadError naming the key a node cannot run.
NcclSpec nccl_spec(const workloads::Layer& l) {
  NcclSpec s;
  s.op = nccl_op_of(l.op);
  s.bytes = l.coll.bytes;
  switch (l.coll.algorithm) {
    case workloads::CollectiveAlgorithm::kDefault:
      break;
    case workloads::CollectiveAlgorithm::kRing:
      if (s.op == CollectiveOp::kAllToAll)
        throw WorkloadError(fmt::format(
            "layer '{}': algorithm: ring; NCCL's all_to_all on a GPU node is direct (leave "
            "algorithm out)",
            l.name));
      s.algorithm = NcclAlgorithm::kRing;
      break;
    default:
      throw WorkloadError(fmt::format(
          "layer '{}': algorithm: {} is a torus algorithm; a GPU node runs NCCL's (leave "
          "algorithm out, or ring)",
          l.name, workloads::collective_algorithm_text(l.coll.algorithm)));
  }
  return s;
}

/// Each compute layer's index in the per-GPU layers.
std::vector<std::uint32_t> full_layers(const GpuNodeProgram& np) {
  std::vector<std::uint32_t> full(np.compute.size(), 0);
  for (std::size_t i = 0; i < np.compute_of.size(); ++i)
    if (np.compute_of[i] != kNone) full[np.compute_of[i]] = static_cast<std::uint32_t>(i);
  return full;
}

/// Moves the kernels' events to the per-GPU layers and adds the collectives on `unit`.
void trace_collectives(TraceRecorder& rec, stats::Trace& trace, const GpuNodeProgram& np,
                       const std::vector<NodeCollectiveRun>& runs, const std::string& unit) {
  const std::vector<std::uint32_t> full = full_layers(np);
  for (auto& e : trace.events) e.layer = full.at(e.layer);  // compute -> per-GPU layer
  const std::uint32_t u = rec.unit(unit);
  const std::uint16_t kind = rec.kind("collective");
  for (std::size_t i = 0; i < runs.size(); ++i)
    rec.add({static_cast<std::uint32_t>(np.collectives[i].layer), 0}, u, kind,
            static_cast<double>(runs[i].begin_ps), static_cast<double>(runs[i].end_ps),
            runs[i].spec.bytes);
}

}  // namespace

void place_collectives(GpuNodeProgram& np, const workloads::GpuProgram& prog) {
  SYSTOLE_ASSERT(prog.layers.size() == np.compute.size(), "one GPU layer plan per layer");
  std::size_t kernels = 0, at = 0;
  for (std::size_t i = 0; i < np.compute_of.size(); ++i) {
    if (np.compute_of[i] != kNone)
      kernels += prog.layers[np.compute_of[i]].kernels.size();
    else
      np.collectives.at(at++).kernel = kernels;
  }
}

GpuNodeProgram node_program(workloads::ParallelPlan plan, const workloads::ParallelDegrees& d,
                            int group_gpus) {
  GpuNodeProgram np;
  np.plan = std::move(plan);
  for (std::size_t i = 0; i < np.plan.layers.size(); ++i) {
    workloads::ParallelLayer& pl = np.plan.layers[i];
    // A tensor group of every GPU is the group `all` (for people: "over all").
    if (pl.inserted && d.tensor == group_gpus) pl.layer.coll.all = true;
    if (!workloads::is_collective_op(pl.layer.op)) {
      np.compute_of.push_back(np.compute.size());
      np.compute.push_back(pl.layer);
      continue;
    }
    np.compute_of.push_back(kNone);
    if (!pl.inserted && !pl.layer.coll.all)
      throw WorkloadError(fmt::format(
          "layer '{}': group: names torus axes, which a GPU node does not have; its collectives "
          "run over every GPU (group: all, the default)",
          pl.layer.name));
    NodeCollectiveSlot slot;
    slot.layer = i;
    slot.group_size = pl.inserted ? static_cast<int>(d.tensor) : group_gpus;
    slot.spec = nccl_spec(pl.layer);
    np.collectives.push_back(slot);
  }
  return np;
}

GpuNodeProgram GpuNodeSystem::partition(const workloads::Workload& w) const {
  const auto d = cfg_.degrees();
  GpuNodeProgram np = node_program(workloads::partition(w.layers, d, {{true, false, false}}), d,
                                   static_cast<int>(cfg_.nvlink.gpus));
  workloads::check_memory(np.plan.chip_layers(), cfg_.gpu.device.hbm.capacity.value(), "gpu0",
                          "every GPU of the " + node_text(cfg_));
  return np;
}

void GpuNodeSystem::check(const workloads::Workload& w) const {
  if (cfg_.parallel.pipeline > 1) {
    const workloads::PipelinePlan p = pipeline_plan(w);
    for (std::size_t s = 0; s < p.stages.size(); ++s)
      workloads::compile_gpu(cfg_.gpu.device, stage_program(p, s).compute, cfg_.gpu.mapping);
    return;
  }
  const GpuNodeProgram np = partition(w);
  workloads::compile_gpu(cfg_.gpu.device, np.compute, cfg_.gpu.mapping);
}

Peaks GpuNodeSystem::peaks() const {
  const GpuDeviceConfig& d = cfg_.gpu.device;
  const auto n = static_cast<double>(cfg_.nvlink.gpus);
  return {2 * d.peak_fma_per_second(TcType::kBf16) * n, d.hbm.bandwidth.value() * n,
          d.tdp_watts * n};
}

stats::PointResult GpuNodeSystem::run(const workloads::Workload& w, const RunOptions& opt) {
  if (cfg_.parallel.pipeline > 1) return run_pipeline(w, opt);
  GpuNodeProgram np = partition(w);
  const GpuSettledProgram settled = compile_settled(cfg_.gpu, np.compute);
  const GpuDeviceConfig& d = settled.device;
  const workloads::GpuProgram& prog = settled.program;
  place_collectives(np, prog);

  stats::PointResult res;
  res.trace.enabled = opt.trace;
  TraceRecorder rec(&res.trace);
  NodeCollectives node(cfg_.nvlink);
  std::vector<NodeCollectiveRun> runs_c;
  GpuDeviceModule top("gpu0", d);
  top.set_trace(&rec, kernel_layers(prog));
  std::size_t next = 0;
  top.set_stream_hook([&](std::size_t k) {
    for (; next < np.collectives.size() && np.collectives[next].kernel == k; ++next) {
      const NodeCollectiveSlot& slot = np.collectives[next];
      const auto t0 = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value());
      runs_c.push_back(node.run(slot.spec, slot.group_size, t0));
      sc_core::wait(
          sc_core::sc_time(static_cast<double>(runs_c.back().end_ps - t0), sc_core::SC_PS));
    }
  });
  const std::vector<GpuKernelRun> runs = top.run(prog.kernels);
  if (rec.on()) {
    trace_kernels(rec, top.name(), top, prog, runs);
    trace_collectives(rec, res.trace, np, runs_c, std::string(top.name()) + ".nvlink");
    trace_to_cycles(res.trace, static_cast<double>(top.sms().period().value()));
    res.trace.clock = d.gpu_sm.clock.value();
  }
  NodeRunView view{cfg_, np, d, prog, runs, runs_c, node};
  write_node_results(view, res);
  return res;
}

void register_gpu_node(Registry& r) {
  SystemFactory f = [](const config::Node& node, const std::string& path) {
    return std::make_unique<GpuNodeSystem>(
        GpuNodeConfig::schema().load(unwrap_gpu_file(node), path));
  };
  r.add({"gpu_node", "system",
         "an NVLink/NVSwitch node of identical GPUs (HGX A100/H100): data/tensor parallel, NCCL "
         "collectives, SPMD (one GPU's kernels simulated, every NVLink trunk simulated)",
         &GpuNodeConfig::schema(), f});
}

}  // namespace systole::models
