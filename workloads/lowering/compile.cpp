#include "workloads/lowering/compile.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"

namespace systole::workloads {

using models::Op;
using models::Operand;
using models::OpKind;
using models::Program;

namespace {

/// The previous instance's VMEM tail, in `whole`'s op indices (kept in the program between
/// calls: the last linked instance's tail).
std::vector<std::uint32_t> tail_deps(const Program& whole, std::uint32_t core, std::uint64_t lo,
                                     std::uint64_t hi) {
  std::vector<std::uint32_t> deps;
  for (const auto& t : whole.vmem_tail)
    if (t.core == core && t.lo < hi && lo < t.hi)
      deps.insert(deps.end(), t.ops.begin(), t.ops.end());
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

/// Index of `path` in `table`, appended when new.
std::uint32_t intern(std::vector<std::string>& table, const std::string& path) {
  const auto it = std::find(table.begin(), table.end(), path);
  if (it != table.end()) return static_cast<std::uint32_t>(it - table.begin());
  table.push_back(path);
  return static_cast<std::uint32_t>(table.size() - 1);
}

/// Where each of `part`'s table entries sits in `whole`'s (entries new to it are appended).
std::vector<std::uint32_t> remap(std::vector<std::string>& whole,
                                 const std::vector<std::string>& part) {
  std::vector<std::uint32_t> to;
  to.reserve(part.size());
  for (const auto& p : part) to.push_back(intern(whole, p));
  return to;
}

/// The weight-FIFO slot each first load of `part` takes (MxuConfig::weight_fifo): load j of a
/// FIFO waits for the reader of the tile loaded `depth` loads before it, which the program's
/// FIFO tail (the last instance that used that MXU's FIFO) holds. Keyed by op index in `part`;
/// `unit_to` maps `part`'s units to `whole`'s.
std::vector<std::pair<std::uint32_t, std::uint32_t>> fifo_slots(
    const Program& whole, const Program& part, std::int64_t depth,
    const std::vector<std::uint32_t>& unit_to) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  std::vector<std::uint16_t> seen;
  for (const auto& f : part.fifos) {
    if (std::find(seen.begin(), seen.end(), f.unit) != seen.end()) continue;  // a later step's
    seen.push_back(f.unit);
    const models::WeightFifo* prev = nullptr;
    for (const auto& w : whole.fifos)
      if (w.unit == unit_to.at(f.unit)) prev = &w;
    for (size_t j = 0; j < f.head.size(); ++j) {
      const std::int64_t back = static_cast<std::int64_t>(j) - depth;  // the slot's last load
      const std::int64_t at = prev ? static_cast<std::int64_t>(prev->tail.size()) + back : -1;
      if (at >= 0)
        out.emplace_back(f.head[j], prev->tail[static_cast<size_t>(at)]);
      else
        out.emplace_back(f.head[j], ~0u);  // a slot nothing before has used
    }
  }
  return out;
}

/// True when `p` is only collectives (it touches no VMEM buffer and no weight FIFO).
bool communication_only(const Program& p) {
  return !p.ops.empty() && std::all_of(p.ops.begin(), p.ops.end(),
                                       [](const Op& o) { return o.kind == OpKind::kCollective; });
}

/// A DMA over the host link of `device` (TpuChipConfig::address names its engine and memory).
Op host_transfer(Program& whole, OpKind kind, std::uint64_t bytes, std::uint32_t layer,
                 std::uint32_t instance, const std::string& device = "chip0") {
  Op op;
  op.kind = kind;
  op.operand = Operand::kHost;
  op.unit = static_cast<std::uint16_t>(intern(whole.units, device + ".host_dma"));
  op.memory = static_cast<std::uint8_t>(intern(whole.memories, device + ".host"));
  op.bytes = bytes;
  op.layer = layer;
  op.instance = instance;
  return op;
}

/// The ops in [begin, end) of `whole` that no other op in that range depends on.
std::vector<std::uint32_t> sinks(const Program& whole, std::uint32_t begin, std::uint32_t end) {
  std::vector<char> read(end - begin, 0);
  for (std::uint32_t i = begin; i < end; ++i)
    for (const auto d : whole.ops[i].deps)
      if (d >= begin && d < end) read[d - begin] = 1;
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = begin; i < end; ++i)
    if (!read[i - begin]) out.push_back(i);
  return out;
}

}  // namespace

CompiledLayer lower_collective(const Layer& l, const std::string& device) {
  SYSTOLE_ASSERT(is_collective_op(l.op), "lower_collective given another layer");
  CompiledLayer c;
  c.layer = l;
  Op op;
  op.kind = OpKind::kCollective;
  op.operand = Operand::kInput;  // it reads the layer before it: waits for it
  op.unit = 0;
  op.bytes = l.coll.bytes;
  op.m = static_cast<std::uint32_t>(static_cast<int>(l.op) - static_cast<int>(LayerOp::kAllReduce));
  op.k = static_cast<std::uint32_t>(l.coll.algorithm);
  for (int a = 0; a < 3; ++a)
    if (l.coll.axes[static_cast<size_t>(a)]) op.n |= 1u << a;
  c.lowered.units = {device + ".ici"};
  c.lowered.ops.push_back(op);
  c.tile = l.coll.algorithm == CollectiveAlgorithm::kDefault
               ? "network default"
               : collective_algorithm_text(l.coll.algorithm);
  return c;
}

void link_instance(Program& whole, const Program& part, std::uint32_t layer,
                   const models::TpuChipConfig& chip, bool overlap, const HostTransfers* host) {
  const std::uint32_t instance = whole.instances;  // instances linked so far
  const bool first = instance == 0;
  // The workload's input from host memory: read once per input step (the first reader loads it,
  // with no dependency: the host has the batch's inputs from the start).
  std::uint32_t host_input = ~0u;
  if (host && host->input_step >= 0 && host->input_bytes > 0) {
    const auto step = static_cast<size_t>(host->input_step);
    if (whole.host_inputs.size() <= step) whole.host_inputs.resize(step + 1, ~0u);
    if (whole.host_inputs[step] == ~0u) {
      whole.host_inputs[step] = static_cast<std::uint32_t>(whole.ops.size());
      whole.ops.push_back(host_transfer(whole, OpKind::kLoad, host->input_bytes, layer, instance));
    }
    host_input = whole.host_inputs[step];
  }
  const auto offset = static_cast<std::uint32_t>(whole.ops.size());
  const bool has_tail = !whole.vmem_tail.empty();
  const auto per_core = static_cast<std::uint32_t>(chip.units_per_core());
  const auto unit_to = remap(whole.units, part.units);
  const auto memory_to = remap(whole.memories, part.memories);
  SYSTOLE_ASSERT(whole.units.size() <= 65536 && whole.memories.size() <= 256,
                 "more units or memories than an op can name");
  bool waits = first;  // some op waits for the previous instance (it reads its output)
  const auto slots = fifo_slots(whole, part, chip.mxu.weight_fifo, unit_to);
  for (std::uint32_t i = 0; i < part.ops.size(); ++i) {
    const Op& src = part.ops[i];
    Op op = src;
    for (auto& d : op.deps) d += offset;
    op.layer = layer;
    op.instance = instance;
    SYSTOLE_ASSERT(src.unit < unit_to.size(), "an op on a unit its program does not name");
    op.unit = static_cast<std::uint16_t>(unit_to[src.unit]);
    if (src.kind == OpKind::kLoad || src.kind == OpKind::kStore) {
      SYSTOLE_ASSERT(src.memory < memory_to.size(), "a DMA to a memory its program does not name");
      op.memory = static_cast<std::uint8_t>(memory_to[src.memory]);
    }
    const auto slot =
        std::find_if(slots.begin(), slots.end(), [&](const auto& s) { return s.first == i; });
    if (!first && overlap && slot != slots.end()) {
      // A weight-FIFO load: waits for its slot, and at most one layer ahead.
      if (slot->second != ~0u) op.deps = {slot->second};
      op.after = instance - 1;
    } else if (!first) {
      const bool root = src.deps.empty();
      const bool weight_root = root && overlap && src.operand == Operand::kWeight &&
                               src.kind == OpKind::kLoad && has_tail;
      if (weight_root) {
        // Prefetch: wait for the VMEM it overwrites, and at most one layer ahead.
        op.deps = tail_deps(whole, src.unit / per_core, src.sram_addr, src.sram_addr + src.bytes);
        op.after = instance - 1;  // the instance before the previous one (0: none)
      } else if (root || (overlap && src.operand == Operand::kInput)) {
        op.after = instance;  // the previous instance, whole
        waits = true;
      }
    }
    // Whatever reads the layer's input (or starts from nothing but it) waits for it from host.
    const bool reads_input =
        src.operand == Operand::kInput || (src.deps.empty() && src.operand != Operand::kWeight);
    if (host_input != ~0u && reads_input) op.deps.push_back(host_input);
    whole.ops.push_back(std::move(op));
  }
  SYSTOLE_ASSERT(waits || part.ops.empty(), "a linked instance that reads nothing before it");
  if (host && host->output_bytes > 0) {  // the outputs leave once the instance is done
    const auto end = static_cast<std::uint32_t>(whole.ops.size());
    Op out = host_transfer(whole, OpKind::kStore, host->output_bytes, layer, instance);
    out.deps = sinks(whole, offset, end);
    whole.ops.push_back(std::move(out));
  }
  if (!communication_only(part)) {  // a collective leaves the VMEM buffers as they were
    whole.vmem_tail = part.vmem_tail;
    for (auto& t : whole.vmem_tail)
      for (auto& o : t.ops) o += offset;
  }
  // Each FIFO's tail: the last step's that used it (a FIFO this instance left alone keeps its).
  for (const auto& f : part.fifos) {
    const auto unit = static_cast<std::uint16_t>(unit_to.at(f.unit));
    auto it = std::find_if(whole.fifos.begin(), whole.fifos.end(),
                           [&](const models::WeightFifo& w) { return w.unit == unit; });
    if (it == whole.fifos.end()) it = whole.fifos.insert(whole.fifos.end(), {unit, {}, {}});
    it->tail = f.tail;
    for (auto& o : it->tail) o += offset;
  }
  whole.instances = instance + 1;
}

CompiledWorkload compile(const models::TpuChipConfig& chip, const std::vector<Layer>& layers,
                         const MappingOptions& opt) {
  CompiledWorkload out;
  out.layer_overlap = opt.layer_overlap;
  const auto handoffs = plan_handoffs(chip, layers, opt);
  for (size_t i = 0; i < layers.size(); ++i) {
    if (is_collective_op(layers[i].op)) {
      out.layers.push_back(lower_collective(layers[i]));
      continue;
    }
    LoweredLayer lowered = lower_layer(chip, layers[i], opt, handoffs[i]);
    CompiledLayer c;
    c.layer = layers[i];
    c.lowered = std::move(lowered.program);
    c.tile = std::move(lowered.tile);
    c.planned_bytes = lowered.planned_bytes;
    c.bounds = lowered.bounds;
    c.handoff = handoffs[i];
    out.layers.push_back(std::move(c));
  }
  return out;
}

Program link(const models::TpuChipConfig& chip, const CompiledWorkload& c,
             std::vector<std::uint32_t>* first_op) {
  Program out;
  out.instances = 0;
  size_t ops = 0;
  for (const auto& l : c.layers) ops += l.lowered.ops.size() * static_cast<size_t>(l.layer.repeat);
  out.ops.reserve(ops);
  if (first_op) first_op->clear();
  std::vector<std::vector<HostTransfers>> host;
  if (chip.host.declared()) {
    std::vector<Layer> layers;
    for (const auto& l : c.layers) layers.push_back(l.layer);
    host = plan_host_transfers(layers);
  }
  for (size_t i = 0; i < c.layers.size(); ++i) {
    if (first_op) first_op->push_back(static_cast<std::uint32_t>(out.ops.size()));
    for (std::int64_t r = 0; r < c.layers[i].layer.repeat; ++r)
      link_instance(out, c.layers[i].lowered, static_cast<std::uint32_t>(i), chip, c.layer_overlap,
                    host.empty() ? nullptr : &host[i][static_cast<size_t>(r)]);
  }
  if (first_op) first_op->push_back(static_cast<std::uint32_t>(out.ops.size()));
  return out;
}

}  // namespace systole::workloads
