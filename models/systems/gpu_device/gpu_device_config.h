#pragma once
// Configuration of one GPU device (A100- or H100-class): how many SMs it enables, the SM
// (`gpu_sm`, models/gpu_sm), the L2 and its crossbar (`l2`, models/l2), the HBM (`hbm`,
// models/hbm), the fixed cost of a kernel launch and the gap between kernels of one stream,
// and the board power. Plain data with a schema; the SystemC device that wires the parts comes
// later (issue 11). Presets: configs/presets/a100_sxm4_80gb.yaml, configs/presets/h100_sxm5.yaml.

#include <cstdint>

#include "models/gpu_sm/gpu_sm_config.h"
#include "models/hbm/hbm_config.h"
#include "models/l2/l2_config.h"

namespace systole::models {

/// The `device` section of a GPU system: SMs, L2, HBM and per-kernel fixed costs.
struct GpuDeviceConfig {
  std::int64_t sms = 0;             ///< SMs enabled (A100 SXM4 108, H100 SXM5 132)
  GpuSmConfig gpu_sm;               ///< every SM; its `clock` is the SM clock
  L2Config l2;                      ///< cycle counts in l2.clock, which must equal the SM clock
  HbmConfig hbm;                    ///< main memory
  Picoseconds launch_overhead{0};   ///< a kernel's fixed cost: launch to first CTA + drain
  Picoseconds inter_kernel_gap{0};  ///< end of one kernel to the start of the next in a stream
  /// A library GEMM kernel's (cuBLAS) fixed device time beyond launch_overhead and its tile
  /// pipeline, before its first CTA starts; measured (tests/validation/gpu/measure/kfixed.py).
  Picoseconds gemm_setup{0};
  /// The same for an implicit-GEMM convolution kernel (cuDNN).
  Picoseconds implicit_gemm_setup{0};
  double tdp_watts = 0;  ///< board power limit (thermal design power)
  /// Power-limited clock (gpu_power.h): the highest SM clock <= boost_clock whose board power
  /// stays <= tdp_watts; 0 turns it off (the SMs run at gpu_sm.clock).
  Hz boost_clock{0};
  double static_watts = 0;        ///< board power with the SMs clocked but idle of tensor work
  double mac_energy_pj = 0;       ///< energy of one 16-bit tensor MAC at boost_clock (pJ)
  double hbm_byte_energy_pj = 0;  ///< energy of one byte moved to or from HBM (pJ)

  static const config::SchemaOf<GpuDeviceConfig>& schema();

  /// Dense tensor FMA (MAC) per second of the whole device for `t`; 0 when unsupported.
  double peak_fma_per_second(TcType t) const;
  /// SM clock cycles of `ps` picoseconds (rounded up).
  double cycles(Picoseconds ps) const;
  /// L2 read bandwidth in bytes per SM clock: the least of the L2 model's three servers summed
  /// (slices, partition crossbars, SM ports). A100: 5120 (slices and crossbars); H100 and H200:
  /// 5040 (crossbars, measured on an H200: configs/presets/h200_sxm.yaml).
  double l2_bytes_per_cycle() const;
  /// HBM peak bandwidth in bytes per SM clock.
  double hbm_bytes_per_cycle() const;
};

}  // namespace systole::models
