#pragma once
// The GPU compiler stage: a workload's layers become the kernels one GPU runs in one stream, in
// layer order. GEMMs and LSTM gate GEMMs run the GEMM kernel the mapper chose
// (mapping/gpu_gemm_mapping.h); conv2d runs as an implicit GEMM (M = N x P x Q, N = K filters,
// K = R x S x C, the A operand gathered from the NHWC image; C padded to whole 16-byte vectors
// by a memset and a padding kernel first, as cuDNN does for C = 3); attention runs as one
// FlashAttention kernel (FA-2 on sm_80, FA-3 on sm_90: mapping/gpu_attention_mapping.h), or,
// with mapping.attention: unfused, as cuBLAS and PyTorch's math path do: a strided-batched QK^T
// GEMM, a softmax kernel and a PV GEMM;
// vector ops (softmax, norms, GELU/SiLU, add, mul) and split-K reductions run as memory-bound
// streaming kernels. Tensors get device addresses from their data-flow edges: a layer reads its
// producer's output where it was written, so the L2 sees the hand-off.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu_sm/gpu_sm_run.h"
#include "models/systems/gpu_device/gpu_device_config.h"
#include "workloads/ir/layer.h"
#include "workloads/mapping/gpu_attention_mapping.h"
#include "workloads/mapping/gpu_gemm_mapping.h"

namespace systole::workloads {

/// One kernel of the stream.
struct GpuKernel {
  enum class Kind { kGemm, kStream, kAttention };
  std::string name;  ///< "qkv_proj", "attn.qk", "attn.softmax", "mlp_up.splitk_reduce"
  size_t layer = 0;  ///< index of the layer it belongs to
  Kind kind = Kind::kGemm;
  GpuGemmMapping gemm;                 ///< kGemm: the mapper's choice
  std::vector<models::CtaWork> works;  ///< kGemm: every CTA, by id
  models::GemmLaunch launch;           ///< kGemm: the CTAs per SM in launch order
  models::GemmAddressing addr;         ///< kGemm
  models::StreamLaunch stream;         ///< kStream
  GpuAttentionMapping flash;           ///< kAttention: the FlashAttention mapper's choice
  models::FlashLaunch flash_launch;    ///< kAttention: every tile in launch order
  models::FlashAddressing flash_addr;  ///< kAttention
  std::uint64_t flops = 0;             ///< useful FLOPs (2 x MACs; vector: lane operations)
  std::uint64_t compulsory_bytes = 0;  ///< inputs read once, output written once
  /// kGemm: the library kernel's fixed time before its CTAs start, after the launch overhead
  /// (device gemm_setup, or implicit_gemm_setup for a convolution's implicit GEMM).
  Picoseconds setup{0};
};

/// What the GPU compiler made of one layer: its kernels and its roofline bounds.
struct GpuLayerPlan {
  Layer layer;
  std::vector<size_t> kernels;  ///< indices into GpuProgram::kernels
  std::uint64_t macs = 0, flops = 0, compulsory_bytes = 0;
  double compute_bound_cycles = 0, hbm_bound_cycles = 0;
  std::string tile;  ///< the main kernel's tile, for people
  std::string why;   ///< the mapping's reasons
};

struct GpuProgram {
  std::vector<GpuKernel> kernels;
  std::vector<GpuLayerPlan> layers;
};

/// Input channels of a convolution as its implicit-GEMM kernel reads them: C rounded up to
/// whole 16-byte vectors (C = 3 at 2 bytes an element: 8). cuDNN pads the image to that many
/// channels before the kernel; CUTLASS's fixed-channels iterator needs C equal to its access
/// width. The GEMM's K is R x S x this.
std::int64_t gpu_conv_padded_channels(std::int64_t c, std::uint64_t elem_bytes);

/// Compiles `layers` for `device`. Throws WorkloadError naming the layer when it cannot run
/// (fp8 on an SM without fp8 tensor cores, int32 GEMMs, grouped convolutions, ...).
/// `instance`: which instance of each repeated layer (`repeat: R`) the program runs, mod R. A
/// repeated layer stands for R layers of the same shape with weights of their own, so each
/// instance reads its weights at addresses of its own, and a warm-up pass (instance p) leaves
/// the next pass (instance p + 1) the activations in the L2 but not its weights: a real
/// network's other R - 1 layers would have evicted them. Instance 0 is a single pass's program.
GpuProgram compile_gpu(const models::GpuDeviceConfig& device, const std::vector<Layer>& layers,
                       const GpuMappingOptions& options = {}, std::size_t instance = 0);

/// The plan for people (simrun --plan).
std::string describe_gpu_program(const models::GpuDeviceConfig& device, const GpuProgram& p);

}  // namespace systole::workloads
