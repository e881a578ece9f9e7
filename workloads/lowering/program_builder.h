#pragma once
// Emits the ops of a chip program: DMA loads/stores spread round-robin over a core's engines,
// matmuls on MXUs, vector ops on the core's vector unit. Ops emitted without dependencies get
// the current barrier (the sinks of the previous step), so steps of a layer run in order.

#include <cstdint>
#include <vector>

#include "models/common/program.h"
#include "models/systems/tpu_chip/tpu_chip_config.h"

namespace systole::workloads {

class ProgramBuilder {
 public:
  using Deps = std::vector<std::uint32_t>;
  ProgramBuilder(const models::TpuChipConfig& chip, models::Program& prog)
      : chip_(chip), prog_(prog), next_engine_(static_cast<size_t>(chip.tensor_cores), 0) {
    chip.address(prog);
  }

  const models::TpuChipConfig& chip() const { return chip_; }
  models::Program& program() { return prog_; }

  std::uint32_t emit(models::Op op);
  /// A DMA between memory (`memory`: TpuChipConfig::kHbm or kCmem) and VMEM. Without a descriptor
  /// the transfer is contiguous at a fresh HBM address (see reserve_hbm), so streams spread over
  /// channels and banks as data would.
  std::uint32_t load(std::int64_t core, std::uint64_t bytes, Deps deps,
                     const models::DmaDescriptor& mem = {}, std::uint64_t sram_addr = 0,
                     std::uint8_t memory = 0);
  std::uint32_t store(std::int64_t core, std::uint64_t bytes, Deps deps,
                      const models::DmaDescriptor& mem = {}, std::uint64_t sram_addr = 0,
                      std::uint8_t memory = 0);
  /// Reserves `bytes` of HBM address space (4 KiB aligned, wrapping at the HBM capacity) and
  /// returns its base.
  std::uint64_t reserve_hbm(std::uint64_t bytes);
  std::uint32_t vector(std::int64_t core, std::uint64_t lane_ops, std::uint64_t bytes, Deps deps);
  /// Marks op `id` as reading the layer's input (or a weight) for the linker; returns `id`.
  std::uint32_t reads(std::uint32_t id, models::Operand what) {
    prog_.ops[id].operand = what;
    return id;
  }

  /// Ends a step: the ops emitted since `begin` that nothing depends on become the barrier of
  /// the ops emitted from now on without dependencies.
  void close_step(size_t begin);
  size_t size() const { return prog_.ops.size(); }

 private:
  std::uint32_t dma(models::OpKind kind, std::int64_t core, std::uint64_t bytes, Deps deps,
                    const models::DmaDescriptor& mem, std::uint64_t sram_addr, std::uint8_t memory);
  const models::TpuChipConfig& chip_;
  models::Program& prog_;
  std::vector<std::int64_t> next_engine_;
  Deps barrier_;
  std::uint64_t next_hbm_ = 0;
};

}  // namespace systole::workloads
