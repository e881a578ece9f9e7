#include "models/systems/gpu_device/gpu_device_settle.h"

#include <algorithm>

#include "models/gpu_sm/gpu_attention.h"
#include "models/systems/gpu_device/gpu_device_trace.h"

namespace systole::models {

namespace {

/// The busiest SM's cycles of a FlashAttention kernel as its schedule spends them: per K/V block
/// a CTA visits, each sub-partition runs its warps' QK^T and PV tensor instructions (mma.sync or
/// wgmma, at their pipe cycles) and their softmax (FP32, ALU and SFU instructions, flash_shape's
/// counts); FA-2 runs the two one after the other (a warp's softmax never overlaps an mma.sync:
/// models/gpu_sm/README.md), FA-3 side by side (ping-pong, intra-warpgroup overlap); the block
/// visits spread evenly over the SMs. Masking and the epilogue are left out (a lower bound).
double flash_sm_cycles(const GpuDeviceConfig& d, const workloads::GpuKernel& k) {
  const FlashShape s = flash_shape(d.gpu_sm, k.flash_launch.tile);
  const auto tensor =
      static_cast<double>(s.qk_steps * s.qk_mma * s.qk_ii + s.pv_steps * s.pv_mma * s.pv_ii);
  const auto softmax = static_cast<double>(
      s.fa3 ? (s.sm_max + s.sm_rest + s.p_convert + s.o_rescale) * s.fp32_cycles +
                  s.sm_sfu * s.sfu_cycles
            : s.fa2_fp32 * s.fp32_cycles + (s.fa2_max_alu + s.fa2_alu) * s.alu_cycles +
                  s.sm_sfu * s.sfu_cycles);
  const double block =
      static_cast<double>(s.sp_warps) * (s.fa3 ? std::max(tensor, softmax) : tensor + softmax);
  return block * static_cast<double>(k.flash.block_visits) / static_cast<double>(d.sms);
}

/// MACs of one kernel as the power model weighs them (16-bit = 1), `repeat` not applied.
double kernel_macs(const workloads::GpuKernel& kern) {
  if (kern.kind == workloads::GpuKernel::Kind::kGemm)
    return static_cast<double>(kern.gemm.bounds.macs) * mac_energy_weight(kern.gemm.tile.in_type);
  if (kern.kind == workloads::GpuKernel::Kind::kAttention)
    return static_cast<double>(kern.flops) / 2;
  return 0;
}

}  // namespace

std::vector<KernelLoad> estimated_loads(const GpuDeviceConfig& d, const workloads::GpuProgram& p) {
  std::vector<KernelLoad> out;
  const double fixed =
      (d.cycles(d.launch_overhead) + d.cycles(d.inter_kernel_gap)) / d.gpu_sm.clock.value();
  for (const auto& lp : p.layers) {
    const auto rep = static_cast<double>(lp.layer.repeat);
    for (size_t k : lp.kernels) {
      const auto& kern = p.kernels[k];
      KernelLoad l;
      l.fixed_seconds = fixed + d.cycles(kern.setup) / d.gpu_sm.clock.value();
      l.hbm_bytes = static_cast<double>(kern.compulsory_bytes);
      l.macs = kernel_macs(kern);
      if (kern.kind == workloads::GpuKernel::Kind::kGemm) {
        l.sm_cycles = kern.gemm.compute_cycles;
        l.hbm_bytes = static_cast<double>(kern.gemm.hbm_bytes);
      } else if (kern.kind == workloads::GpuKernel::Kind::kAttention) {
        l.sm_cycles = std::max(l.macs / static_cast<double>(d.sms * d.gpu_sm.tc_bf16_fma),
                               flash_sm_cycles(d, kern));
      }
      l.macs *= rep;
      l.sm_cycles *= rep;
      l.hbm_bytes *= rep;
      l.fixed_seconds *= rep;
      out.push_back(l);
    }
  }
  return out;
}

std::vector<KernelLoad> simulated_loads(const GpuDeviceConfig& d, const workloads::GpuProgram& p,
                                        const std::vector<GpuKernelRun>& runs) {
  SYSTOLE_ASSERT(runs.size() == p.kernels.size(), "gpu_device: one run per kernel");
  const double f = d.gpu_sm.clock.value();
  const double launch = d.cycles(d.launch_overhead) / f, gap = d.cycles(d.inter_kernel_gap) / f;
  const double sector = static_cast<double>(d.l2.sector.value());
  std::vector<KernelLoad> out;
  for (const auto& lp : p.layers) {
    const auto rep = static_cast<double>(lp.layer.repeat);
    for (size_t k : lp.kernels) {
      const auto& kern = p.kernels[k];
      const GpuKernelRun& r = runs[k];
      const double setup = d.cycles(kern.setup) / f;
      KernelLoad l;
      l.fixed_seconds = (launch + gap + setup) * rep;
      l.macs = kernel_macs(kern) * rep;
      const double busy = (r.end_ps - r.start_ps) * 1e-12 - launch - setup;
      l.sm_cycles = std::max(0.0, busy) * f * rep;
      l.hbm_bytes =
          static_cast<double>(r.l2_after.sectors_fetched - r.l2_before.sectors_fetched +
                              r.l2_after.writeback_sectors - r.l2_before.writeback_sectors) *
          sector * rep;
      out.push_back(l);
    }
  }
  return out;
}

GpuSettledProgram compile_settled(const GpuSystemConfig& cfg,
                                  const std::vector<workloads::Layer>& layers) {
  // Under a power cap the board settles at the clock its power allows (gpu_power.h); the
  // program is compiled again at that clock (latencies in cycles change the mapper's choice).
  GpuSettledProgram out{cfg.device, workloads::compile_gpu(cfg.device, layers, cfg.mapping)};
  GpuDeviceConfig& d = out.device;
  if (d.boost_clock.value() > 0) {
    const Hz f(power_limited_clock(d, estimated_loads(d, out.program)));
    d.gpu_sm.clock = f;
    d.l2.clock = f;
    out.program = workloads::compile_gpu(d, layers, cfg.mapping);
  }
  return out;
}

PowerSettler::PowerSettler(const GpuSystemConfig& cfg, const std::vector<workloads::Layer>& layers)
    : cfg_(cfg),
      layers_(layers),
      repeated_(std::any_of(layers.begin(), layers.end(),
                            [](const workloads::Layer& l) { return l.repeat > 1; })) {
  passes_.push_back(std::make_unique<GpuSettledProgram>(compile_settled(cfg, layers)));
}

GpuPass PowerSettler::next(std::size_t p, const std::vector<GpuKernelRun>& previous,
                           GpuDeviceModule& top) {
  const GpuSettledProgram& was = current();
  if (p > 0) {
    GpuDeviceConfig d = was.device;
    if (d.boost_clock.value() > 0) {
      const Hz f(power_limited_clock(d, simulated_loads(d, was.program, previous)));
      d.gpu_sm.clock = f;
      d.l2.clock = f;
    }
    const bool moved = d.gpu_sm.clock.value() != was.device.gpu_sm.clock.value();
    if (moved || repeated_) {  // a new clock, or the next instance of the repeated layers
      auto prog = workloads::compile_gpu(d, layers_, cfg_.mapping, p);
      passes_.push_back(std::make_unique<GpuSettledProgram>(GpuSettledProgram{d, std::move(prog)}));
      if (moved) top.set_clock(d.gpu_sm.clock);
    }
  }
  return {&current().program.kernels, kernel_layers(current().program)};
}

}  // namespace systole::models
