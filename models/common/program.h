#pragma once
// The chip's program: one layer lowered to operations on named units (DMA engines, MXUs, vector
// units), with explicit dependencies. Produced by workloads/lowering, executed by the SystemC
// modules.

#include <cstdint>
#include <string>
#include <vector>

#include "models/dma/dma_descriptor.h"

namespace systole::models {

enum class OpKind : std::uint8_t {
  kLoad,    ///< DMA: memory (HBM/CMEM) -> VMEM
  kStore,   ///< DMA: VMEM -> memory
  kMatmul,  ///< MXU: A[m x k] (streamed) times W[k x n] (stationary), accumulate into C[m x n]
  kVector,  ///< vector unit: `lane_ops` lane operations over data in VMEM
};
const char* op_kind_name(OpKind k);

struct Op {
  OpKind kind = OpKind::kLoad;
  std::uint16_t unit = 0;                ///< executing unit (index into the chip's unit list)
  std::uint8_t memory = 0;               ///< DMA: 0 = HBM, 1 = CMEM
  std::uint64_t bytes = 0;               ///< DMA: bytes moved; matmul: operand bytes read from VMEM
  DmaDescriptor mem;                     ///< DMA: tile rows in memory (none: `bytes` at mem.addr)
  std::uint64_t sram_addr = 0;           ///< DMA: the tile in VMEM (its rows packed)
  std::uint32_t m = 0, k = 0, n = 0;     ///< matmul shape
  std::uint32_t m0 = 0, k0 = 0, n0 = 0;  ///< matmul: where the tile sits in the layer's GEMM
  std::uint64_t lane_ops = 0;            ///< vector: lane operations
  std::vector<std::uint32_t> deps;       ///< ops (indices into Program::ops) that must finish first
};

struct Program {
  std::vector<Op> ops;
};

}  // namespace systole::models
