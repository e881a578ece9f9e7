// simrun --plan for gpu_node: how the workload is spread over the node — each layer's split on
// the (one) GPU role and the collectives inserted, with NCCL's choice, bytes and alpha-beta
// time — then gpu0's kernels as gpu_device plans them, without simulating.
#include <fmt/format.h>

#include "models/systems/gpu_node/gpu_node_system.h"
#include "sim/core/units.h"
#include "sim/stats/summary.h"

namespace systole::models {

std::string GpuNodeSystem::plan(const workloads::Workload& w) const {
  if (cfg_.parallel.pipeline > 1) return plan_pipeline(w);
  const GpuNodeProgram np = partition(w);
  const auto d = cfg_.degrees();
  std::string out = fmt::format(
      "{}-GPU NVSwitch node, data {} x tensor {} (tensor groups: consecutive GPUs). SPMD: one "
      "GPU role (gpu0) simulated, every NVLink trunk simulated.\n"
      "Inference: data-parallel replicas do not communicate (no gradient all-reduce).\n",
      cfg_.nvlink.gpus, d.data, d.tensor);
  out += layer_table(np);
  out += workloads::describe_gpu_program(
      cfg_.gpu.device, workloads::compile_gpu(cfg_.gpu.device, np.compute, cfg_.gpu.mapping));
  return out;
}

std::string GpuNodeSystem::layer_table(const GpuNodeProgram& np) const {
  std::string out;
  std::vector<std::vector<std::string>> rows;
  std::size_t next = 0;
  for (std::size_t i = 0; i < np.plan.layers.size(); ++i) {
    const workloads::ParallelLayer& l = np.plan.layers[i];
    const workloads::LayerFootprint f = workloads::footprint(l.layer);
    std::string coll, ab;
    if (workloads::is_collective_op(l.layer.op)) {
      const NodeCollectiveSlot& s = np.collectives.at(next++);
      NvlinkConfig gc = cfg_.nvlink;
      gc.gpus = s.group_size;
      coll = fmt::format("{} over {} GPUs",
                         format_quantity(static_cast<double>(s.spec.bytes), Dimension::kBytes),
                         s.group_size);
      if (s.group_size > 1) {
        const NcclChoice ch = nccl_choose(gc, s.spec);
        coll += fmt::format(" ({} {} {}ch)", nccl_algorithm_name(ch.algorithm),
                            nccl_protocol_name(ch.protocol), ch.channels);
        ab = format_quantity(nccl_alpha_beta_seconds(gc, s.spec, ch), Dimension::kTime);
      }
    }
    rows.push_back({l.layer.name + (l.inserted ? " *" : ""), workloads::layer_op_name(l.layer.op),
                    l.layer.shape(), l.split,
                    format_quantity(static_cast<double>(f.weights), Dimension::kBytes), coll, ab});
  }
  out += stats::format_table(
      {"layer", "op", "per-GPU shape", "split", "weights/GPU", "collective", "alpha-beta"}, rows);
  out += "* inserted by the compiler. The GPU's kernels:\n";
  return out;
}

}  // namespace systole::models
