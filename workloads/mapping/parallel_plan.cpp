#include "workloads/mapping/parallel_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "sim/core/error.h"
#include "sim/core/units.h"

namespace systole::workloads {

namespace {

using u64 = std::uint64_t;
u64 u(std::int64_t v) { return static_cast<u64>(v); }

enum class Shard { kReplicated, kSharded };

/// Divides `value` (field `what` of layer `l`) by `ways`, or throws naming the layer.
std::int64_t divide(const Layer& l, const char* what, std::int64_t value, std::int64_t ways,
                    const char* degree) {
  if (value % ways)
    throw WorkloadError(fmt::format("layer '{}': {} = {} does not split over {} = {} chips", l.name,
                                    what, value, degree, ways));
  return value / ways;
}

/// Splits the batch of `l` over `d` chips (data parallel).
void split_data(Layer& l, std::int64_t d) {
  if (d == 1 || is_collective_op(l.op)) return;
  switch (l.op) {
    case LayerOp::kGemm:
      if (l.batch % d == 0)
        l.batch /= d;
      else
        l.m = divide(l, "m (batch x m rows)", l.m, d, "data");
      break;
    case LayerOp::kLstm:
      l.m = divide(l, "batch", l.m, d, "data");
      break;
    case LayerOp::kConv2d:
      l.conv.n = divide(l, "n", l.conv.n, d, "data");
      break;
    case LayerOp::kAttention:
      l.attn.batch = divide(l, "batch", l.attn.batch, d, "data");
      break;
    default:
      l.vec.rows = divide(l, "rows", l.vec.rows, d, "data");
  }
}

Layer collective(LayerOp op, const std::string& name, u64 bytes, const std::array<bool, 3>& axes,
                 const Layer& like) {
  Layer c;
  c.name = name;
  c.op = op;
  c.dtype = like.dtype;
  c.repeat = like.repeat;
  c.origin = like.origin;
  c.coll.bytes = bytes;
  c.coll.all = false;
  c.coll.axes = axes;
  return c;
}

}  // namespace

u64 output_bytes(const Layer& l) {
  const u64 eb = dtype_bytes(l.dtype);
  switch (l.op) {
    case LayerOp::kGemm:
      return u(l.rows()) * u(l.out_cols()) * eb;
    case LayerOp::kLstm:
      return u(l.rows()) * u(l.hidden()) * eb;
    case LayerOp::kConv2d:
      return u(l.conv.n * l.conv.p() * l.conv.q()) * u(l.conv.k) * eb;
    case LayerOp::kAttention:
      return u(l.attn.batch * l.attn.heads * l.attn.seq_q) * u(l.attn.head_dim) * eb;
    default:
      return is_collective_op(l.op) ? l.coll.bytes : u(l.vec.rows) * u(l.vec.cols) * eb;
  }
}

namespace {

class Partitioner {
 public:
  Partitioner(const ParallelDegrees& d, const std::array<bool, 3>& axes) : d_(d), axes_(axes) {}

  ParallelPlan run(const std::vector<Layer>& layers) {
    const auto from = producers(layers);
    state_.assign(layers.size(), Shard::kReplicated);
    for (size_t i = 0; i < layers.size(); ++i) {
      source_ = i;
      Layer l = layers[i];
      for (auto& in : l.inputs)  // a layer reads the collective that now follows its producer
        if (renamed_.count(in)) in = renamed_.at(in);
      split_data(l, d_.data);
      bool sharded = false;
      for (size_t p : from[i])
        if (p != kFromInput && state_[p] == Shard::kSharded) sharded = true;
      if (d_.tensor == 1)
        emit(l, "whole");
      else
        state_[i] = tensor(l, sharded);
    }
    return std::move(plan_);
  }

 private:
  void emit(Layer l, std::string split, bool inserted = false) {
    if (!inserted && d_.data > 1 && !is_collective_op(l.op))
      split += fmt::format(", batch/{}", d_.data);
    plan_.layers.push_back({std::move(l), std::move(split), inserted, source_});
  }

  /// Splits `l` over the tensor group; returns its output's sharding.
  Shard tensor(Layer& l, bool sharded) {
    const std::int64_t t = d_.tensor;
    const std::string tt = std::to_string(t);
    switch (l.op) {
      case LayerOp::kGemm: {
        if (!sharded) {
          l.n = divide(l, "n", l.n, t, "tensor");
          emit(l, "column n/" + tt);
          return Shard::kSharded;
        }
        l.k = divide(l, "k", l.k, t, "tensor");
        const Layer g = l;
        emit(l, "row k/" + tt + " + all_reduce");
        const std::string ar = g.name + ".all_reduce";
        renamed_[g.name] = ar;
        Layer c = collective(LayerOp::kAllReduce, ar, output_bytes(g), axes_, g);
        c.inputs = {g.name};
        emit(c, "tensor group", true);
        return Shard::kReplicated;
      }
      case LayerOp::kAttention: {
        AttentionShape& a = l.attn;
        a.heads = divide(l, "heads", a.heads, t, "tensor");
        if (a.kv_heads % t == 0)
          a.kv_heads /= t;
        else if (t % a.kv_heads == 0)
          a.kv_heads = 1;  // fewer K/V heads than chips: each chip keeps the one its heads use
        else
          divide(l, "kv_heads", a.kv_heads, t, "tensor");
        emit(l, "heads/" + tt);
        return Shard::kSharded;
      }
      case LayerOp::kLayerNorm:
      case LayerOp::kRmsNorm:
        if (!sharded) break;
        {  // a norm reduces over the whole row: gather it first
          const std::string ag = l.name + ".all_gather";
          Layer c = collective(LayerOp::kAllGather, ag,
                               u(l.vec.rows) * u(l.vec.cols) * dtype_bytes(l.dtype), axes_, l);
          c.inputs = l.inputs;
          emit(c, "tensor group", true);
          l.inputs = {ag};
          emit(l, "replicated (after all_gather)");
          return Shard::kReplicated;
        }
      case LayerOp::kSoftmax:
      case LayerOp::kGelu:
      case LayerOp::kSilu:
      case LayerOp::kAdd:
      case LayerOp::kMul:
        if (!sharded) break;
        if (l.op == LayerOp::kSoftmax)
          l.vec.rows = divide(l, "rows", l.vec.rows, t, "tensor");
        else
          l.vec.cols = divide(l, "cols", l.vec.cols, t, "tensor");
        emit(l, l.op == LayerOp::kSoftmax ? "rows/" + tt : "cols/" + tt);
        return Shard::kSharded;
      default:
        if (sharded && !is_collective_op(l.op))
          throw WorkloadError(fmt::format(
              "layer '{}': a {} layer on tensor-sharded input is not partitioned (conv2d and "
              "lstm layers are replicated; put them where the activations are whole)",
              l.name, layer_op_name(l.op)));
        emit(l, is_collective_op(l.op) ? "as written" : "replicated");
        return sharded ? Shard::kSharded : Shard::kReplicated;
    }
    emit(l, "replicated");
    return Shard::kReplicated;
  }

  ParallelDegrees d_;
  std::array<bool, 3> axes_;
  std::vector<Shard> state_;
  std::map<std::string, std::string> renamed_;
  ParallelPlan plan_;
  std::size_t source_ = 0;
};

}  // namespace

std::vector<Layer> ParallelPlan::chip_layers() const {
  std::vector<Layer> out;
  out.reserve(layers.size());
  for (const auto& p : layers) out.push_back(p.layer);
  return out;
}

ParallelPlan partition(const std::vector<Layer>& layers, const ParallelDegrees& d,
                       const std::array<bool, 3>& tensor_axes) {
  if (d.data == 1 && d.tensor == 1) {
    ParallelPlan p;
    for (size_t i = 0; i < layers.size(); ++i) p.layers.push_back({layers[i], "whole", false, i});
    return p;
  }
  return Partitioner(d, tensor_axes).run(layers);
}

std::vector<StageRange> split_stages(const std::vector<Layer>& layers, std::int64_t stages) {
  const std::size_t n = layers.size();
  if (stages < 1 || static_cast<std::size_t>(stages) > n)
    throw WorkloadError(fmt::format(
        "{} pipeline stages need at least {} layers (a stage is never empty); the workload has {}",
        stages, stages, n));
  const auto p = static_cast<std::size_t>(stages);
  std::vector<u64> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + layers[i].macs() * u(layers[i].repeat);
  // best[s][i]: the smallest largest-stage MACs of layers [0, i) in s stages; cut[s][i]: where
  // its last stage begins (the earliest such boundary).
  constexpr u64 kNone = ~u64{0};
  std::vector<std::vector<u64>> best(p + 1, std::vector<u64>(n + 1, kNone));
  std::vector<std::vector<size_t>> cut(p + 1, std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  for (size_t s = 1; s <= p; ++s)
    for (size_t i = s; i <= n; ++i)
      for (size_t j = s - 1; j < i; ++j) {
        if (best[s - 1][j] == kNone) continue;
        const u64 worst = std::max(best[s - 1][j], prefix[i] - prefix[j]);
        if (worst < best[s][i]) {
          best[s][i] = worst;
          cut[s][i] = j;
        }
      }
  // From the end back: each stage begins at the earliest boundary that keeps the optimum.
  std::vector<StageRange> out(p);
  size_t end = n;
  for (size_t s = p; s >= 1; --s) {
    const size_t first = cut[s][end];
    out[s - 1] = {first, end, prefix[end] - prefix[first]};
    end = first;
  }
  return out;
}

PipelinePlan partition_pipeline(const std::vector<Layer>& layers, const ParallelDegrees& d,
                                std::int64_t microbatches, const std::array<bool, 3>& tensor_axes) {
  PipelinePlan out;
  out.microbatches = microbatches;
  ParallelDegrees per = d;
  per.data = d.data * microbatches;
  per.pipeline = 1;
  const ParallelPlan whole = partition(layers, per, tensor_axes);
  for (const StageRange& r : split_stages(layers, d.pipeline)) {
    PipelineStage st;
    st.range = r;
    for (const auto& l : whole.layers)
      if (l.source >= r.first && l.source < r.end) st.plan.layers.push_back(l);
    out.stages.push_back(std::move(st));
  }
  for (size_t s = 0; s + 1 < out.stages.size(); ++s)
    out.stages[s].send_bytes = output_bytes(out.stages[s].plan.layers.back().layer);
  return out;
}

LayerFootprint footprint(const Layer& l) {
  LayerFootprint f;
  const u64 eb = dtype_bytes(l.dtype);
  const u64 r = u(l.repeat);
  switch (l.op) {
    case LayerOp::kGemm:
      f.weights = u(l.k) * u(l.n) * eb * r;
      f.activations = u(l.rows()) * u(l.k) * eb + output_bytes(l);
      break;
    case LayerOp::kLstm:
      f.weights = u(l.k) * u(l.n) * eb;  // one cell: its time steps share the weights
      f.activations = u(l.rows()) * u(l.k) * eb + 2 * output_bytes(l);
      break;
    case LayerOp::kConv2d: {
      const ConvShape& c = l.conv;
      f.weights = u(c.r * c.s * (c.c / c.groups)) * u(c.k) * eb * r;
      f.activations = u(c.n * c.h * c.w) * u(c.c) * eb + output_bytes(l);
      break;
    }
    case LayerOp::kAttention: {
      const AttentionShape& a = l.attn;
      f.kv_cache = 2 * u(a.batch * a.kv_heads * a.seq_kv) * u(a.head_dim) * eb * r;
      f.activations = 2 * output_bytes(l);  // Q in, O out
      break;
    }
    default:
      f.activations = is_collective_op(l.op)                             ? 2 * l.coll.bytes
                      : (l.op == LayerOp::kAdd || l.op == LayerOp::kMul) ? 3 * output_bytes(l)
                                                                         : 2 * output_bytes(l);
  }
  return f;
}

void check_memory(const std::vector<Layer>& layers, std::uint64_t capacity,
                  const std::string& device, const std::string& holders) {
  const auto size = [](std::uint64_t b) {
    return format_quantity(static_cast<double>(b), Dimension::kBytes);
  };
  std::uint64_t weights = 0, kv = 0;
  for (const auto& l : layers) {
    const LayerFootprint f = footprint(l);
    weights += f.weights;
    kv += f.kv_cache;
    const std::uint64_t need = weights + kv + f.activations;
    if (need > capacity)
      throw WorkloadError(fmt::format(
          "layer '{}' does not fit {}'s HBM ({} holds the same): weights {} + KV cache {} of the "
          "layers up to it, + its activations {} = {} > {}",
          l.name, device, holders, size(weights), size(kv), size(f.activations), size(need),
          size(capacity)));
  }
}

PipelinePlan checked_pipeline_plan(const std::vector<Layer>& layers, const ParallelDegrees& d,
                                   std::int64_t microbatches,
                                   const std::array<bool, 3>& tensor_axes) {
  split_stages(layers, d.pipeline);                       // too few layers: its own error
  partition(layers, {d.data, d.tensor, 1}, tensor_axes);  // the data and tensor splits
  try {
    return partition_pipeline(layers, d, microbatches, tensor_axes);
  } catch (const WorkloadError& e) {
    throw ConfigError(
        Origin{"<system.parallel>"}, "system.parallel.microbatches",
        fmt::format("{} micro-batches do not divide each data-parallel replica's batch (the data "
                    "split {} x micro-batches {}): {}",
                    microbatches, d.data, microbatches, e.what()));
  }
}

}  // namespace systole::workloads
