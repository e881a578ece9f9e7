#include "workloads/lowering/compile.h"

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

}  // namespace

void link_instance(Program& whole, const Program& part, std::uint32_t layer,
                   const models::TpuChipConfig& chip, bool overlap) {
  const std::uint32_t instance = whole.instances;  // instances linked so far
  const bool first = instance == 0;
  const auto offset = static_cast<std::uint32_t>(whole.ops.size());
  const bool has_tail = !whole.vmem_tail.empty();
  const auto per_core = static_cast<std::uint32_t>(chip.units_per_core());
  const auto unit_to = remap(whole.units, part.units);
  const auto memory_to = remap(whole.memories, part.memories);
  SYSTOLE_ASSERT(whole.units.size() <= 65536 && whole.memories.size() <= 256,
                 "more units or memories than an op can name");
  bool waits = first;  // some op waits for the previous instance (it reads its output)
  for (const Op& src : part.ops) {
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
    if (!first) {
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
    whole.ops.push_back(std::move(op));
  }
  SYSTOLE_ASSERT(waits || part.ops.empty(), "a linked instance that reads nothing before it");
  whole.vmem_tail = part.vmem_tail;
  for (auto& t : whole.vmem_tail)
    for (auto& o : t.ops) o += offset;
  whole.instances = instance + 1;
}

CompiledWorkload compile(const models::TpuChipConfig& chip, const std::vector<Layer>& layers,
                         const MappingOptions& opt) {
  CompiledWorkload out;
  out.layer_overlap = opt.layer_overlap;
  const auto handoffs = plan_handoffs(chip, layers, opt);
  for (size_t i = 0; i < layers.size(); ++i) {
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
  for (size_t i = 0; i < c.layers.size(); ++i) {
    if (first_op) first_op->push_back(static_cast<std::uint32_t>(out.ops.size()));
    for (std::int64_t r = 0; r < c.layers[i].layer.repeat; ++r)
      link_instance(out, c.layers[i].lowered, static_cast<std::uint32_t>(i), chip, c.layer_overlap);
  }
  if (first_op) first_op->push_back(static_cast<std::uint32_t>(out.ops.size()));
  return out;
}

}  // namespace systole::workloads
