#include "models/systems/tpu_pod/tpu_pod_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/systems/parallel_error.h"
#include "models/systems/tpu_chip/tpu_system_config.h"

namespace systole::models {

namespace {

/// The first set of `free` axes of `shape` (subsets in order x, y, xy, z, xz, yz, xyz; axes of
/// one chip left out) whose sizes multiply to `degree`; false when none does.
bool take_axes(const std::array<std::int64_t, 3>& shape, std::int64_t degree,
               std::array<bool, 3>& free, std::array<bool, 3>& axes) {
  if (degree == 1) return true;
  for (unsigned mask = 1; mask < 8; ++mask) {
    std::int64_t product = 1;
    bool ok = true;
    for (size_t a = 0; a < 3; ++a)
      if (mask >> a & 1u) {
        ok = ok && free[a] && shape[a] > 1;
        product *= shape[a];
      }
    if (!ok || product != degree) continue;
    for (size_t a = 0; a < 3; ++a)
      if (mask >> a & 1u) {
        axes[a] = true;
        free[a] = false;
      }
    return true;
  }
  return false;
}

/// The group sizes whole axes of `shape` give, for people: "2, 4, 8".
std::string products(const std::array<std::int64_t, 3>& shape) {
  std::vector<std::int64_t> v;
  for (unsigned mask = 1; mask < 8; ++mask) {
    std::int64_t p = 1;
    bool ok = true;
    for (size_t a = 0; a < 3; ++a)
      if (mask >> a & 1u) {
        ok = ok && shape[a] > 1;
        p *= shape[a];
      }
    if (ok) v.push_back(p);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string s;
  for (auto p : v) s += (s.empty() ? "" : ", ") + std::to_string(p);
  return s.empty() ? "none (one chip)" : s;
}

void validate(const TpuPodConfig& c, const config::Node& n, const std::string& p) {
  check_mapping_on_chip(c.chip, c.mapping, n, p);
  if (c.chip.host.declared()) {  // the pod's chips take their data from their peers, not a host
    const config::Node* chip = n.is_map() ? n.find("chip") : nullptr;
    throw ConfigError(chip ? chip->origin() : n.origin(),
                      p.empty() ? "chip.host" : p + ".chip.host",
                      "a host link is modelled for one chip (system kind tpu_chip) only; leave "
                      "chip.host.bandwidth at 0 in a tpu_pod");
  }
  const ParallelConfig& par = c.parallel;
  const std::int64_t chips = c.ici.chips();
  const std::int64_t tp = par.tensor * par.pipeline;
  if (par.pipeline == 1 && par.microbatches > 1)
    throw_parallel_error(
        n, p, "microbatches",
        fmt::format("{} micro-batches need pipeline stages (pipeline > 1); use microbatches: 1",
                    par.microbatches));
  if (par.data == 0 && chips % tp)
    throw_parallel_error(
        n, p, "tensor",
        fmt::format("tensor x pipeline = {} does not divide the {} chips of the {} slice", tp,
                    chips, c.ici.shape_text()));
  const std::int64_t data = par.data ? par.data : chips / tp;
  if (data * tp != chips)
    throw_parallel_error(
        n, p, "data",
        fmt::format("data x tensor x pipeline = {} x {} x {} = {}, but the {} slice has {} chips",
                    data, par.tensor, par.pipeline, data * tp, c.ici.shape_text(), chips));
  ParallelAxes a;
  std::array<bool, 3> free{{true, true, true}};
  if (!take_axes(c.ici.shape, par.tensor, free, a.tensor))
    throw_parallel_error(
        n, p, "tensor",
        fmt::format("the tensor group ({} chips) must span whole torus axes; the {} slice's "
                    "axes give groups of {}",
                    par.tensor, c.ici.shape_text(), products(c.ici.shape)));
  if (!take_axes(c.ici.shape, par.pipeline, free, a.pipeline))
    throw_parallel_error(
        n, p, "pipeline",
        fmt::format("the pipeline stages ({}) must span whole torus axes besides the tensor "
                    "group's; the {} slice's axes give groups of {}",
                    par.pipeline, c.ici.shape_text(), products(c.ici.shape)));
}

}  // namespace

workloads::ParallelDegrees TpuPodConfig::degrees() const {
  workloads::ParallelDegrees d;
  d.tensor = parallel.tensor;
  d.pipeline = parallel.pipeline;
  d.data = parallel.data ? parallel.data : ici.chips() / (d.tensor * d.pipeline);
  return d;
}

ParallelAxes TpuPodConfig::axes() const {
  ParallelAxes a;
  std::array<bool, 3> free{{true, true, true}};
  take_axes(ici.shape, parallel.tensor, free, a.tensor);
  take_axes(ici.shape, parallel.pipeline, free, a.pipeline);
  for (size_t i = 0; i < 3; ++i) a.data[i] = free[i] && ici.shape[i] > 1;  // the rest
  return a;
}

const config::SchemaOf<ParallelConfig>& ParallelConfig::schema() {
  static const config::SchemaOf<ParallelConfig> s = [] {
    config::SchemaOf<ParallelConfig> b(
        "parallel", "how the workload is spread over the slice: data x tensor x pipeline = chips");
    b.integer("data", &ParallelConfig::data, 0, 0, 1 << 20,
              "data-parallel ways: the batch split (0: chips / (tensor x pipeline))", "chips")
        .integer("tensor", &ParallelConfig::tensor, 1, 1, 1 << 20,
                 "tensor-parallel ways (Megatron column/row splits); the group spans whole torus "
                 "axes from x on",
                 "chips")
        .integer("pipeline", &ParallelConfig::pipeline, 1, 1, 1 << 20,
                 "pipeline stages (GPipe): contiguous runs of layers balanced by MACs, each on "
                 "its own chips; the stages span whole torus axes after the tensor group",
                 "stages")
        .integer("microbatches", &ParallelConfig::microbatches, 1, 1, 1 << 20,
                 "GPipe micro-batches (pipeline > 1): each data-parallel replica's batch (the "
                 "sequences; GEMM rows where a GEMM has no batch) splits into this many; must "
                 "divide it",
                 "micro-batches");
    return b;
  }();
  return s;
}

const config::SchemaOf<TpuPodConfig>& TpuPodConfig::schema() {
  static const config::SchemaOf<TpuPodConfig> s = [] {
    config::SchemaOf<TpuPodConfig> b("tpu_pod",
                                     "a TPU slice: identical chips joined by the ICI network");
    b.group("chip", &TpuPodConfig::chip, TpuChipConfig::schema(), "each chip (tpu_chip schema)")
        .group("ici", &TpuPodConfig::ici, IciConfig::schema(), "the ICI network of the slice")
        .group("parallel", &TpuPodConfig::parallel, ParallelConfig::schema(),
               "data, tensor and pipeline parallelism")
        .group("mapping", &TpuPodConfig::mapping, workloads::MappingOptions::schema(),
               "mapping choices on each chip")
        .ignore("kind");
    b.check(validate);
    return b;
  }();
  return s;
}

}  // namespace systole::models
