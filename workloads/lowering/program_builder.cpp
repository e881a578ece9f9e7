#include "workloads/lowering/program_builder.h"

namespace systole::workloads {

using models::Op;
using models::OpKind;

std::uint32_t ProgramBuilder::emit(Op op) {
  if (op.deps.empty()) op.deps = barrier_;
  prog_.ops.push_back(std::move(op));
  return static_cast<std::uint32_t>(prog_.ops.size() - 1);
}

std::uint64_t ProgramBuilder::reserve_hbm(std::uint64_t bytes) {
  const std::uint64_t aligned = (bytes + 4095) / 4096 * 4096;
  const std::uint64_t capacity = chip_.hbm.capacity.value();
  if (next_hbm_ + aligned > capacity) next_hbm_ = 0;
  const std::uint64_t base = next_hbm_;
  next_hbm_ += aligned;
  return base;
}

std::uint32_t ProgramBuilder::dma(OpKind kind, std::int64_t core, std::uint64_t bytes, Deps deps,
                                  const models::DmaDescriptor& mem, std::uint64_t sram_addr,
                                  std::uint8_t memory) {
  Op op;
  op.kind = kind;
  op.unit = chip_.dma_unit(core, next_engine_[static_cast<size_t>(core)]++ % chip_.dma.engines);
  op.bytes = bytes;
  op.mem = mem.row_bytes ? mem : models::DmaDescriptor::linear(reserve_hbm(bytes), bytes);
  op.sram_addr = sram_addr;
  op.memory = memory;
  op.deps = std::move(deps);
  return emit(std::move(op));
}

std::uint32_t ProgramBuilder::load(std::int64_t core, std::uint64_t bytes, Deps deps,
                                   const models::DmaDescriptor& mem, std::uint64_t sram_addr,
                                   std::uint8_t memory) {
  return dma(OpKind::kLoad, core, bytes, std::move(deps), mem, sram_addr, memory);
}

std::uint32_t ProgramBuilder::store(std::int64_t core, std::uint64_t bytes, Deps deps,
                                    const models::DmaDescriptor& mem, std::uint64_t sram_addr,
                                    std::uint8_t memory) {
  return dma(OpKind::kStore, core, bytes, std::move(deps), mem, sram_addr, memory);
}

std::uint32_t ProgramBuilder::vector(std::int64_t core, std::uint64_t lane_ops, std::uint64_t bytes,
                                     Deps deps) {
  Op op;
  op.kind = OpKind::kVector;
  op.unit = chip_.vector_unit(core);
  op.lane_ops = lane_ops;
  op.bytes = bytes;
  op.deps = std::move(deps);
  return emit(std::move(op));
}

void ProgramBuilder::close_step(size_t begin) {
  std::vector<char> used(prog_.ops.size() - begin, 0);
  for (size_t i = begin; i < prog_.ops.size(); ++i)
    for (auto d : prog_.ops[i].deps)
      if (d >= begin) used[d - begin] = 1;
  Deps sinks;
  for (size_t i = begin; i < prog_.ops.size(); ++i)
    if (!used[i - begin]) sinks.push_back(static_cast<std::uint32_t>(i));
  if (!sinks.empty()) barrier_ = std::move(sinks);
}

}  // namespace systole::workloads
