// SM presets: one A100 SXM4 SM (GA100, sm_80) and one H100 SXM5 SM (GH100, sm_90a), as data.
// Sources:
//   [A100-WP]  NVIDIA, "NVIDIA A100 Tensor Core GPU Architecture" whitepaper (2020), §4.1-4.4
//              (tensor-core rates per SM, 192 KB L1/shared with up to 164 KB shared, 64K regs)
//   [H100-WP]  NVIDIA, "NVIDIA H100 Tensor Core GPU Architecture" whitepaper v1.04, §4.1
//              (2x A100's dense tensor rate per SM at the same type, FP8 at 2x FP16, 256 KB
//              L1/shared with up to 228 KB shared, 2x FP32 lanes per SM)
//   [CUDA-PG]  NVIDIA, CUDA C++ Programming Guide, "Compute Capabilities" tables (CC 8.0 and
//              9.0: 64K registers, 64 warps, 32 resident blocks, 1024 threads per block, shared
//              memory 164 KB / 228 KB per SM and 163 KB / 227 KB per block, 32 banks of 4 B)
//              and "Arithmetic Instructions" throughput table (FP32 FMA 64 / 128 per clock per
//              SM; special functions 16 per clock per SM on CC 8.0 and 9.0; compare, minimum,
//              maximum 64 per clock per SM)
//   [NCU-KPG]  NVIDIA, Nsight Compute Kernel Profiling Guide, "Pipelines": the alu pipe runs
//              bit manipulation, logic, integer (not IMAD) and compare instructions, and on
//              Ampere and later the fast FP32-to-FP16 conversion (F2FP)
//   [CUDA-OCC] the CUDA toolkit's cuda_occupancy.h: registers allocated per warp in units of
//              256, shared memory in units of 128 B, 1 KB reserved per block on CC >= 8.0
//   [ACCELSIM] accel-sim/accel-sim-framework, gpu-simulator/configs/tested-cfgs/
//              NVIDIA_A100_80GB_PCIe/gpgpusim.config and accel-sim/gpgpu-sim_distribution
//              configs/tested-cfgs/SM90_H100/gpgpusim.config: shared-memory latency 29 cycles
//              (calibrated against hardware)
//   [MLENG]    stas00/ml-engineering compute/accelerator/README.md: H100 SXM tensor peaks are
//              computed at 1830 MHz (989.4 TF bf16 = 132 SMs x 4096 FLOP x 1.83 GHz)
#include "models/gpu_sm/gpu_sm_config.h"

namespace systole::models {

namespace {

void common(GpuSmConfig& c) {
  c.sub_partitions = 4;  // 4 processing blocks per SM, one tensor core each [A100-WP] §4.1
  c.registers = 65536;   // 64K x 32-bit [CUDA-PG]
  c.max_warps = 64;      // [CUDA-PG]
  c.max_ctas = 32;       // [CUDA-PG]
  c.max_threads_per_cta = 1024;
  c.reg_alloc_unit = 256;                   // [CUDA-OCC]
  c.smem_reserved_per_block = Bytes(1024);  // [CUDA-OCC]
  c.smem_alloc_unit = Bytes(128);           // [CUDA-OCC]
  c.smem_banks = 32;                        // 32 banks x 4 B = 128 B per clock [CUDA-PG]
  c.smem_bank_bytes = 4;
  c.smem_latency = 29;  // [ACCELSIM] (both the A100 and H100 calibrations)
  c.sfu_lanes = 16;     // [CUDA-PG] arithmetic-instruction throughput, CC 8.0 and 9.0
  // 64 INT32 lanes per SM (16 per sub-partition) on both [A100-WP] [H100-WP]: the alu pipe of
  // [NCU-KPG]; compare, minimum, maximum at 64 per clock per SM [CUDA-PG]. On H100 that is half
  // the FP32 rate, on A100 the same.
  c.alu_lanes = 64;
  // ASSUMPTION mma_latency 32 cycles (plausible 16-40): issue of a dependent mma.sync
  // m16n8k16 after its predecessor on the same accumulator. The Ampere/Hopper microbenchmark
  // papers' tables could not be read here (FACTS.md lists them unconfirmed).
  c.mma_latency = 32;
  // ASSUMPTION wgmma_latency 32 cycles (plausible 16-64): from the end of a wgmma's occupancy
  // of the tensor pipe until wgmma.wait_group sees it complete. Unpublished.
  c.wgmma_latency = 32;
}

}  // namespace

void GpuSmConfig::apply_preset(GpuSmPreset p) {
  preset = p;
  common(*this);
  if (p == GpuSmPreset::kA100Sxm4) {
    arch = GpuArch::kAmpere;
    clock = Hz(1410e6);                  // boost clock at which the 312 TF peak is quoted [A100-WP]
    tc_fp16_fma = 1024;                  // 256 FMA per tensor core x 4 [A100-WP] §4.1, §4.2.1
    tc_bf16_fma = 1024;                  // same rate as fp16 [A100-WP]
    tc_tf32_fma = 512;                   // 156 TF = half the fp16 rate [A100-WP]
    tc_fp8_fma = 0;                      // no fp8 tensor path on Ampere [A100-WP]
    tc_int8_mac = 2048;                  // 624 TOPS = 2x fp16 [A100-WP]
    mma_sync_cycles = 0;                 // mma.sync is A100's native instruction: the rate's 8
    fp32_lanes = 64;                     // [A100-WP], [CUDA-PG]
    smem_per_sm = Bytes(164 * 1024);     // [A100-WP] §4.4, [CUDA-PG]
    smem_per_block = Bytes(163 * 1024);  // [CUDA-PG]
  } else {
    arch = GpuArch::kHopper;
    clock = Hz(1830e6);  // the clock of the tensor peaks [MLENG]
    tc_fp16_fma = 2048;  // 2x A100 per SM [H100-WP] §4.1
    tc_bf16_fma = 2048;
    tc_tf32_fma = 1024;
    tc_fp8_fma = 4096;  // 2x fp16 [H100-WP] §4.1
    tc_int8_mac = 4096;
    // mma.sync (the sm_80 instruction, which FA-2 and CUTLASS 2.x kernels run on H100) is
    // slower than wgmma: m16n8k16 bf16 sustains 1361-1366 FMA/clk/SM on a lent H100 SXM (one
    // CTA per SM, 8-16 warps, clock64() around 4096 iterations:
    // tests/validation/gpu/data/h100_attention_clocks.txt) = one per 6 cycles per sub-partition
    // (2048 x 4 / 6 = 1365). ASSUMPTION: tf32 (m16n8k8) and 8-bit (m16n8k32) mma.sync the same.
    mma_sync_cycles = 6;
    fp32_lanes = 128;                    // 2x A100 per SM [H100-WP], [CUDA-PG]
    smem_per_sm = Bytes(228 * 1024);     // [H100-WP] §4.1, [CUDA-PG]
    smem_per_block = Bytes(227 * 1024);  // [CUDA-PG]
  }
}

GpuSmConfig a100_sxm4_sm() { return GpuSmConfig::from_preset(GpuSmPreset::kA100Sxm4); }
GpuSmConfig h100_sxm5_sm() { return GpuSmConfig::from_preset(GpuSmPreset::kH100Sxm5); }

}  // namespace systole::models
