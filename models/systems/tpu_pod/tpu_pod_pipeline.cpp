#include "models/systems/tpu_pod/tpu_pod_pipeline.h"

#include <fmt/format.h>

#include "models/systems/tpu_pod/pod_stage_link.h"
#include "sim/core/error.h"
#include "sim/core/units.h"

namespace systole::models {

using workloads::CompiledLayer;
using workloads::CompiledWorkload;

namespace {

/// The stage of chip `c`: its coordinates on the pipeline axes read as one number, x first.
std::int64_t stage_of(const IciTopology& topo, const std::array<bool, 3>& axes, ChipId c) {
  const ChipCoord at = topo.coord(c);
  std::int64_t s = 0, mult = 1;
  for (size_t a = 0; a < 3; ++a)
    if (axes[a]) {
      s += at[a] * mult;
      mult *= topo.shape()[a];
    }
  return s;
}

/// Chip `c` moved to stage `s`.
ChipId in_stage(const IciTopology& topo, const std::array<bool, 3>& axes, ChipId c,
                std::int64_t s) {
  ChipCoord at = topo.coord(c);
  for (size_t a = 0; a < 3; ++a)
    if (axes[a]) {
      at[a] = static_cast<int>(s % topo.shape()[a]);
      s /= topo.shape()[a];
    }
  return topo.chip(at);
}

std::uint32_t intern(std::vector<std::string>& table, const std::string& path) {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i] == path) return static_cast<std::uint32_t>(i);
  table.push_back(path);
  return static_cast<std::uint32_t>(table.size() - 1);
}

Op handoff(std::uint32_t kind, std::uint64_t bytes, std::uint16_t unit) {
  Op op;
  op.kind = OpKind::kCollective;
  op.m = kind;
  op.bytes = bytes;
  op.unit = unit;
  return op;
}

/// Prepends a receive: it becomes op 0, and every op that reads the layer's input, or that
/// waited for nothing and loads no weights, waits for it; weight loads too unless `prefetch`
/// (then they stream in while the stage waits for its input).
void prepend_receive(Program& p, bool prefetch) {
  const auto unit = static_cast<std::uint16_t>(intern(p.units, "chip0.p2p"));
  for (auto& op : p.ops) {
    for (auto& d : op.deps) ++d;
    const bool weight = op.kind == OpKind::kLoad && op.operand == Operand::kWeight;
    if (op.operand == Operand::kInput || (op.deps.empty() && (!weight || !prefetch)))
      op.deps.push_back(0);
  }
  p.ops.insert(p.ops.begin(), handoff(PodStageLink::kRecv, 0, unit));
  for (auto& t : p.vmem_tail)
    for (auto& o : t.ops) ++o;
  for (auto& f : p.fifos) {
    for (auto& o : f.head) ++o;
    for (auto& o : f.tail) ++o;
  }
}

/// Appends a send of `bytes` that waits for every op of the layer nothing else waits for.
void append_send(Program& p, std::uint64_t bytes) {
  std::vector<bool> used(p.ops.size(), false);
  for (const auto& op : p.ops)
    for (auto d : op.deps) used[d] = true;
  Op op =
      handoff(PodStageLink::kSend, bytes, static_cast<std::uint16_t>(intern(p.units, "chip0.p2p")));
  for (std::uint32_t i = 0; i < p.ops.size(); ++i)
    if (!used[i]) op.deps.push_back(i);
  p.ops.push_back(std::move(op));
}

/// `c` split so that its first (`head`) or last instance stands alone.
std::vector<CompiledLayer> peel(const CompiledLayer& c, bool head) {
  if (c.layer.repeat == 1) return {c};
  CompiledLayer one = c, rest = c;
  one.layer.repeat = 1;
  rest.layer.repeat = c.layer.repeat - 1;
  return head ? std::vector<CompiledLayer>{one, rest} : std::vector<CompiledLayer>{rest, one};
}

}  // namespace

std::vector<bool> StageChips::mask(std::size_t s, int slice_chips) const {
  std::vector<bool> m(static_cast<std::size_t>(slice_chips), false);
  for (ChipId c : chips.at(s)) m[c] = true;
  return m;
}

StageChips stage_chips(const IciTopology& topo, const std::array<bool, 3>& pipeline_axes,
                       std::int64_t stages) {
  StageChips out;
  out.chips.resize(static_cast<std::size_t>(stages));
  out.to_next.resize(static_cast<std::size_t>(stages));
  for (ChipId c = 0; c < static_cast<ChipId>(topo.chips()); ++c) {
    const std::int64_t s = stage_of(topo, pipeline_axes, c);
    SYSTOLE_ASSERT(s < stages, "a chip beyond the pipeline's stages");
    out.chips[static_cast<std::size_t>(s)].push_back(c);
    if (s + 1 < stages)
      out.to_next[static_cast<std::size_t>(s)].emplace_back(
          c, in_stage(topo, pipeline_axes, c, s + 1));
  }
  return out;
}

CompiledWorkload stage_schedule(const CompiledWorkload& per_micro, std::size_t stage,
                                std::size_t stages, std::int64_t micro, std::uint64_t send_bytes) {
  SYSTOLE_ASSERT(!per_micro.layers.empty(), "an empty pipeline stage");
  CompiledWorkload out;
  out.layer_overlap = per_micro.layer_overlap;
  const bool receives = stage > 0, sends = stage + 1 < stages;
  const std::size_t last = per_micro.layers.size() - 1;
  for (std::int64_t j = 0; j < micro; ++j) {
    std::vector<CompiledLayer> mb;
    for (std::size_t i = 0; i <= last; ++i) {
      std::vector<CompiledLayer> parts{per_micro.layers[i]};
      if (i == 0 && receives) {
        parts = peel(parts.front(), true);
        prepend_receive(parts.front().lowered, per_micro.layer_overlap);
      }
      if (i == last && sends) {
        std::vector<CompiledLayer> tail = peel(parts.back(), false);
        parts.pop_back();
        parts.insert(parts.end(), tail.begin(), tail.end());
        append_send(parts.back().lowered, send_bytes);
      }
      for (auto& p : parts) {
        p.layer.name = fmt::format("mb{}.{}", j, p.layer.name);
        mb.push_back(std::move(p));
      }
    }
    out.layers.insert(out.layers.end(), mb.begin(), mb.end());
  }
  return out;
}

void rename_device(Program& p, const std::string& device) {
  for (auto* table : {&p.units, &p.memories})
    for (auto& path : *table)
      if (path.rfind("chip0.", 0) == 0) path = device + path.substr(5);
}

void check_stage_memory(const TpuChipConfig& chip, const std::vector<workloads::Layer>& layers,
                        std::size_t s, ChipId first_chip, std::int64_t micro) {
  const auto size = [](std::uint64_t b) {
    return format_quantity(static_cast<double>(b), Dimension::kBytes);
  };
  const std::uint64_t capacity = chip.hbm.capacity.value();
  std::uint64_t weights = 0, kv = 0;
  for (const auto& l : layers) {
    weights += workloads::footprint(l).weights;
    kv += workloads::footprint(l).kv_cache * static_cast<std::uint64_t>(micro);
  }
  for (const auto& l : layers) {
    const std::uint64_t act = workloads::footprint(l).activations;
    if (weights + kv + act > capacity)
      throw WorkloadError(fmt::format(
          "pipeline stage {} does not fit chip {}'s HBM (every chip of the stage holds the same): "
          "the stage's weights {} + KV cache {} ({} micro-batches) + layer '{}''s activations {} "
          "= {} > {}",
          s, first_chip, size(weights), size(kv), micro, l.name, size(act),
          size(weights + kv + act), size(capacity)));
  }
}

double PipelineRun::bubble() const {
  if (stages.empty() || time_s <= 0) return 0;
  double idle = 0;
  for (const auto& s : stages) idle += s.idle_s;
  return idle / (static_cast<double>(stages.size()) * time_s);
}

}  // namespace systole::models
