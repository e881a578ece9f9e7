#include "models/systems/gpu_device/gpu_device_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace systole::models {

namespace {

[[noreturn]] void fail(const config::Node& n, const std::string& p, const std::string& key,
                       const std::string& msg) {
  const config::Node* k = nullptr;
  if (n.is_map()) {
    const std::string head = key.substr(0, key.find('.'));
    k = n.find(head);
  }
  throw ConfigError(k ? k->origin() : n.origin(), p.empty() ? key : p + "." + key, msg);
}

/// Cross-section rules: the L2's cycle counts are SM cycles in the device model, so both clocks
/// must agree; the SM's tensor path must exist for at least the 16-bit types GEMMs use.
void validate(const GpuDeviceConfig& c, const config::Node& n, const std::string& p) {
  if (std::abs(c.l2.clock.value() - c.gpu_sm.clock.value()) > 0.5)
    fail(n, p, "l2.clock",
         fmt::format("the L2's cycle counts are SM cycles in the device, but l2.clock is {} and "
                     "gpu_sm.clock {}: set l2.clock to {}",
                     format_quantity(c.l2.clock.value(), Dimension::kFrequency),
                     format_quantity(c.gpu_sm.clock.value(), Dimension::kFrequency),
                     format_quantity(c.gpu_sm.clock.value(), Dimension::kFrequency)));
  if (c.boost_clock.value() > 0 && c.boost_clock.value() < c.gpu_sm.clock.value() * 0.25)
    fail(n, p, "boost_clock",
         fmt::format("boost_clock {} is below a quarter of gpu_sm.clock {}: give the GPU's "
                     "highest clock (H100 SXM 1980 MHz) or 0 to turn the power model off",
                     format_quantity(c.boost_clock.value(), Dimension::kFrequency),
                     format_quantity(c.gpu_sm.clock.value(), Dimension::kFrequency)));
  if (c.gpu_sm.tc_fp16_fma == 0 && c.gpu_sm.tc_bf16_fma == 0)
    fail(n, p, "gpu_sm.tc_bf16_fma",
         "the SM has neither an fp16 nor a bf16 tensor path: a GEMM device needs one "
         "(A100: 1024 FMA/clk per SM)");
}

}  // namespace

double GpuDeviceConfig::peak_fma_per_second(TcType t) const {
  return static_cast<double>(sms) * static_cast<double>(gpu_sm.tc_rate(t)) * gpu_sm.clock.value();
}

double GpuDeviceConfig::cycles(Picoseconds ps) const {
  return std::ceil(static_cast<double>(ps.value()) * 1e-12 * gpu_sm.clock.value());
}

double GpuDeviceConfig::l2_bytes_per_cycle() const {
  return static_cast<double>(
      std::min({l2.slices() * l2.slice_bandwidth, l2.partitions * l2.xbar_bandwidth,
                static_cast<std::int64_t>(sms) * l2.port_bandwidth}));
}

double GpuDeviceConfig::hbm_bytes_per_cycle() const {
  return hbm.bandwidth.value() / gpu_sm.clock.value();
}

// Defaults describe the A100 SXM4 80GB; configs/presets/a100_sxm4_80gb.yaml and h100_sxm5.yaml
// cite every number.
const config::SchemaOf<GpuDeviceConfig>& GpuDeviceConfig::schema() {
  static const config::SchemaOf<GpuDeviceConfig> s = [] {
    config::SchemaOf<GpuDeviceConfig> b("gpu_device", "one GPU: SMs, L2 and crossbar, HBM");
    b.integer("sms", &GpuDeviceConfig::sms, 108, 1, 4096,
              "SMs enabled (A100 SXM4 108 of GA100's 128; H100 SXM5 132 of GH100's 144)", "SMs")
        .group("gpu_sm", &GpuDeviceConfig::gpu_sm, GpuSmConfig::schema(),
               "every SM (its clock is the device's SM clock)")
        .group("l2", &GpuDeviceConfig::l2, L2Config::schema(), "the L2 and its crossbar")
        .group("hbm", &GpuDeviceConfig::hbm, HbmConfig::schema(), "main memory")
        .time("launch_overhead", &GpuDeviceConfig::launch_overhead, std::string("2us"), 0, 1e-3,
              "ASSUMPTION (1-5 us): a kernel's fixed device time, grid launch to the first CTA "
              "plus the drain after the last; unpublished")
        .time("inter_kernel_gap", &GpuDeviceConfig::inter_kernel_gap, std::string("1us"), 0, 1e-3,
              "ASSUMPTION (0.5-3 us): idle time between back-to-back kernels of one stream "
              "(NVIDIA blog 'Getting Started with CUDA Graphs': ~1 us per short kernel, V100)")
        .time("gemm_setup", &GpuDeviceConfig::gemm_setup, std::string("0us"), 0, 1e-3,
              "a GEMM kernel's (cuBLAS) fixed device time beyond launch_overhead and its tile "
              "pipeline (set-up and drain the model does not run), before its CTAs start; "
              "measured by tests/validation/gpu/measure/kfixed.py; 0: not measured")
        .time("implicit_gemm_setup", &GpuDeviceConfig::implicit_gemm_setup, std::string("0us"), 0,
              1e-3, "the same for an implicit-GEMM convolution kernel (cuDNN); 0: not measured")
        .real("tdp_watts", &GpuDeviceConfig::tdp_watts, 400.0, 1.0, 10000.0,
              "board power limit (A100 SXM4 400 W, H100 SXM5 700 W: NVIDIA datasheets)", "W")
        .frequency("boost_clock", &GpuDeviceConfig::boost_clock, std::string("0Hz"), Hz(0),
                   Hz(1e10),
                   "highest SM clock; > 0 runs each program at the highest clock <= this whose "
                   "board power (static + MAC and HBM-byte energy at their rates) is <= "
                   "tdp_watts, dynamic energy scaling with V^2 and V with f (gpu_power.h); 0: the "
                   "SMs run at gpu_sm.clock")
        .real("static_watts", &GpuDeviceConfig::static_watts, 0.0, 0.0, 10000.0,
              "power model: board power without tensor or HBM traffic at the running clock", "W")
        .real("mac_energy_pj", &GpuDeviceConfig::mac_energy_pj, 0.0, 0.0, 1000.0,
              "power model: energy of one 16-bit tensor MAC at boost_clock (fp8/int8 half, tf32 "
              "twice)",
              "pJ")
        .real("hbm_byte_energy_pj", &GpuDeviceConfig::hbm_byte_energy_pj, 0.0, 0.0, 1000.0,
              "power model: energy of one byte read from or written to HBM", "pJ");
    b.check(validate);
    return b;
  }();
  return s;
}

}  // namespace systole::models
