#include "models/systems/gpu_node/gpu_node_config.h"

#include <fmt/format.h>

#include <string>

#include "models/systems/parallel_error.h"

namespace systole::models {

namespace {

void validate(const GpuNodeConfig& c, const config::Node& n, const std::string& p) {
  if (c.gpu.warmup != 0) {
    const config::Node* g = n.is_map() ? n.find("gpu") : nullptr;
    const config::Node* w = g && g->is_map() ? g->find("warmup") : nullptr;
    throw ConfigError(w ? w->origin() : n.origin(), (p.empty() ? "" : p + ".") + "gpu.warmup",
                      "warm-up passes are a single-GPU option (system kind gpu_device); a node "
                      "runs its program once: remove gpu.warmup");
  }
  const GpuParallelConfig& par = c.parallel;
  const std::int64_t gpus = c.nvlink.gpus;
  const std::int64_t tp = par.tensor * par.pipeline;
  if (par.pipeline == 1 && par.microbatches > 1)
    throw_parallel_error(
        n, p, "microbatches",
        fmt::format("{} micro-batches need pipeline stages (pipeline > 1); use microbatches: 1",
                    par.microbatches));
  if (par.data == 0 && gpus % tp)
    throw_parallel_error(
        n, p, par.pipeline > 1 ? "pipeline" : "tensor",
        par.pipeline > 1
            ? fmt::format("tensor x pipeline = {} x {} = {} does not divide the node's {} GPUs",
                          par.tensor, par.pipeline, tp, gpus)
            : fmt::format("tensor = {} does not divide the node's {} GPUs", par.tensor, gpus));
  const std::int64_t data = par.data ? par.data : gpus / tp;
  if (data * tp != gpus)
    throw_parallel_error(
        n, p, "data",
        fmt::format("data x tensor x pipeline = {} x {} x {} = {}, but the node has {} GPUs "
                    "(nvlink.gpus)",
                    data, par.tensor, par.pipeline, data * tp, gpus));
}

}  // namespace

workloads::ParallelDegrees GpuNodeConfig::degrees() const {
  workloads::ParallelDegrees d;
  d.tensor = parallel.tensor;
  d.pipeline = parallel.pipeline;
  d.data = parallel.data ? parallel.data : nvlink.gpus / (parallel.tensor * parallel.pipeline);
  return d;
}

const config::SchemaOf<GpuParallelConfig>& GpuParallelConfig::schema() {
  static const config::SchemaOf<GpuParallelConfig> s = [] {
    config::SchemaOf<GpuParallelConfig> b(
        "parallel",
        "how the workload is spread over the node's GPUs: data x tensor x pipeline = GPUs");
    b.integer("data", &GpuParallelConfig::data, 0, 0, 1 << 20,
              "data-parallel ways: the batch split (0: gpus / (tensor x pipeline))", "GPUs")
        .integer("tensor", &GpuParallelConfig::tensor, 1, 1, 1 << 20,
                 "tensor-parallel ways (Megatron column/row splits); groups of consecutive GPUs",
                 "GPUs")
        .integer("pipeline", &GpuParallelConfig::pipeline, 1, 1, 1 << 20,
                 "GPipe pipeline stages: contiguous runs of layers balanced by MACs, each on "
                 "data x tensor consecutive GPUs",
                 "stages")
        .integer("microbatches", &GpuParallelConfig::microbatches, 1, 1, 1 << 20,
                 "GPipe micro-batches: each data-parallel replica's batch split this many ways "
                 "(needs pipeline > 1)",
                 "micro-batches");
    return b;
  }();
  return s;
}

const config::SchemaOf<GpuNodeConfig>& GpuNodeConfig::schema() {
  static const config::SchemaOf<GpuNodeConfig> s = [] {
    config::SchemaOf<GpuNodeConfig> b(
        "gpu_node", "an NVLink/NVSwitch node: identical GPUs joined by the NVSwitch fabric");
    b.group("gpu", &GpuNodeConfig::gpu, GpuSystemConfig::schema(),
            "each GPU (gpu_device schema: device, mapping; or {base: a gpu_device preset})")
        .group("nvlink", &GpuNodeConfig::nvlink, NvlinkConfig::schema(),
               "the node's NVLink/NVSwitch network and NCCL settings")
        .group("parallel", &GpuNodeConfig::parallel, GpuParallelConfig::schema(),
               "data, tensor and pipeline parallelism")
        .ignore("kind");
    b.check(validate);
    return b;
  }();
  return s;
}

config::Node unwrap_gpu_file(const config::Node& system) {
  config::Node out = system;
  config::Node* gpu = out.is_map() ? out.find("gpu") : nullptr;
  const config::Node* inner = gpu && gpu->is_map() ? gpu->find("system") : nullptr;
  if (inner == nullptr || !inner->is_map()) return out;
  config::Node merged = *inner;
  merged.erase("kind");
  config::Node rest = *gpu;
  rest.erase("system");
  config::merge_into(merged, rest);
  *gpu = merged;
  return out;
}

}  // namespace systole::models
