#pragma once
// The program of a design point: the whole workload lowered to operations on units (DMA
// engines, MXUs, vector units), with explicit dependencies. Produced by workloads/lowering (one
// layer at a time, then linked into one graph), executed by the SystemC modules under one
// sc_start. Ops across layers are ordered only by data (an op that reads a layer's input waits
// for the instance that produced it) and by VMEM buffer reuse (explicit deps).

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
  /// ICI: a collective over the chips of a slice (CollectiveStep: `bytes` = S per chip, `m` =
  /// the collective, `k` = the algorithm, `n` = the group's torus axes as a mask x=1, y=2, z=4)
  kCollective,
};
const char* op_kind_name(OpKind k);

/// What a DMA or matmul op touches of its layer's tensors: the cross-layer rules of the linker
/// (workloads/lowering/compile.h) follow it.
enum class Operand : std::uint8_t {
  kNone,    ///< intermediate data of the layer (partial sums, staged copies, results)
  kInput,   ///< reads the layer's input activations: waits for the instance that produced them
  kWeight,  ///< reads a weight tensor (in HBM from the start): waits only for its VMEM buffer
  kHost,    ///< moves the workload's input in from host memory, or its output out to it
};

struct Op {
  OpKind kind = OpKind::kLoad;
  Operand operand = Operand::kNone;
  std::uint16_t unit = 0;                ///< executing unit: index into Program::units
  std::uint8_t memory = 0;               ///< DMA: the memory side, index into Program::memories
  std::uint64_t bytes = 0;               ///< DMA: bytes moved; matmul: operand bytes read from VMEM
  DmaDescriptor mem;                     ///< DMA: tile rows in memory (none: `bytes` at mem.addr)
  std::uint64_t sram_addr = 0;           ///< DMA: the tile in VMEM (its rows packed)
  std::uint32_t m = 0, k = 0, n = 0;     ///< matmul shape
  std::uint32_t m0 = 0, k0 = 0, n0 = 0;  ///< matmul: where the tile sits in the layer's GEMM
  std::uint64_t lane_ops = 0;            ///< vector: lane operations
  std::uint32_t layer = 0;               ///< the workload layer the op belongs to (statistics)
  std::uint32_t instance = 0;            ///< the lowered layer instance (one per layer repeat)
  std::uint32_t after = 0;          ///< instance + 1 whose every op must finish first (0: none)
  std::vector<std::uint32_t> deps;  ///< ops (indices into Program::ops) that must finish first
};

/// The last users of a VMEM buffer in a lowered layer: a later layer's op that writes into
/// [lo, hi) of that core's VMEM must wait for them (write-after-read across layers).
struct VmemTail {
  std::uint32_t core = 0;
  std::uint64_t lo = 0, hi = 0;
  std::vector<std::uint32_t> ops;
};

/// One MXU's weight FIFO (MxuConfig::weight_fifo) in a lowered layer: its first loads (those
/// with no dependency in the layer, at most the FIFO's depth) and the matmuls that read its last
/// tiles (at most the depth, oldest first). The linker makes the next layer's first loads wait
/// for the readers of the slots they take.
struct WeightFifo {
  std::uint16_t unit = 0;  ///< the MXU: index into Program::units
  std::vector<std::uint32_t> head, tail;
};

/// Ops name units and memories by instance path (`chip0.core1.mxu2`, `chip0.hbm`), interned in
/// the program's tables; the netlist that runs the program resolves the paths, so one program
/// may address many devices.
struct Program {
  std::vector<Op> ops;
  std::vector<std::string> units;     ///< Op::unit indexes this
  std::vector<std::string> memories;  ///< Op::memory indexes this
  /// Reported by the lowering of the layer's last step (GEMMs); empty: every VMEM buffer is
  /// taken to be in use until the whole layer has finished.
  std::vector<VmemTail> vmem_tail;
  std::vector<WeightFifo> fifos;  ///< the weight FIFOs the lowered layer uses
  std::uint32_t instances = 1;    ///< lowered layer instances in `ops` (after < instances + 1)
  /// The host-link loads of the workload's input linked so far (by input step: an LSTM's x_t).
  std::vector<std::uint32_t> host_inputs;
};

}  // namespace systole::models
