#pragma once
// The workload's external data over a chip's host link (TpuChipConfig::host): which layer
// instances read the workload's input from host memory and which write its outputs back, and
// how many bytes each moves. TPU v1 is a PCIe coprocessor: Read_Host_Memory brings a batch's
// inputs into the Unified Buffer and Write_Host_Memory returns its outputs (Jouppi et al., ISCA
// 2017, §2). The linker (compile.h) turns each into a DMA op on the host engine.

#include <cstdint>
#include <vector>

#include "workloads/ir/layer.h"

namespace systole::workloads {

/// What one linked layer instance moves over the host link.
struct HostTransfers {
  std::int64_t input_step = -1;    ///< the input it reads (x_t of an LSTM: t; else 0); -1: none
  std::uint64_t input_bytes = 0;   ///< bytes of that input
  std::uint64_t output_bytes = 0;  ///< written back once the instance has finished; 0: none
};

/// Bytes of the workload's input one instance of `l` reads: gemm its A, conv2d its input
/// feature map, lstm x_t, attention Q, K and V, a vector op its input rows.
std::uint64_t external_input_bytes(const Layer& l);
/// Bytes of the output one instance of `l` writes (gemm: as stored, N / 2 columns under GLU).
std::uint64_t external_output_bytes(const Layer& l);

/// The host transfers of every instance of every layer (per layer, one entry per repeat).
/// Serial per batch: the run is one batch, its inputs read before the instances that need them
/// (an LSTM's x_t before each of the first stacked layer's steps, all available at once) and its
/// outputs (layers no other layer reads; an LSTM's h_t of every step of its last stacked layer)
/// written after the layer's last instance. Collectives move nothing over it.
std::vector<std::vector<HostTransfers>> plan_host_transfers(const std::vector<Layer>& layers);

}  // namespace systole::workloads
