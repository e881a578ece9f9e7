#include "models/systems/gpu_device/gpu_power.h"

#include <algorithm>
#include <cmath>

namespace systole::models {

namespace {
constexpr double kStepHz = 15e6;  // clock step: every sample in data/*_clocks.csv
}

double board_power(const GpuDeviceConfig& d, const std::vector<KernelLoad>& loads, double f) {
  double seconds = 0, macs = 0, bytes = 0;
  const double bw = d.hbm.bandwidth.value();
  for (const auto& l : loads) {
    seconds += std::max(l.sm_cycles / f, l.hbm_bytes / bw) + l.fixed_seconds;
    macs += l.macs;
    bytes += l.hbm_bytes;
  }
  if (seconds <= 0) return d.static_watts;
  const double v = f / d.boost_clock.value();  // V proportional to f: energy per op ~ V^2
  return d.static_watts + d.mac_energy_pj * 1e-12 * v * v * macs / seconds +
         d.hbm_byte_energy_pj * 1e-12 * bytes / seconds;
}

double power_limited_clock(const GpuDeviceConfig& d, const std::vector<KernelLoad>& loads) {
  if (d.boost_clock.value() <= 0) return d.gpu_sm.clock.value();
  const double top = std::floor(d.boost_clock.value() / kStepHz) * kStepHz;
  const double floor_hz = std::ceil(top / 4 / kStepHz) * kStepHz;
  for (double f = top; f > floor_hz; f -= kStepHz)
    if (board_power(d, loads, f) <= d.tdp_watts) return f;
  return floor_hz;
}

double mac_energy_weight(TcType t) { return static_cast<double>(tc_type_bytes(t)) / 2.0; }

}  // namespace systole::models
