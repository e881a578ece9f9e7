#pragma once
// The SM clock a GPU board settles at under its power limit (DVFS under a power cap). Board
// power at SM clock f while a program loops:
//   P(f) = static_watts + E_mac(f) x MAC rate(f) + E_hbm x HBM byte rate(f),
//   E_mac(f) = mac_energy_pj x (f / boost_clock)^2,
// dynamic energy per operation scaling with V^2 (CMOS switching energy C V^2) and the supply
// voltage with the clock in the DVFS range (V proportional to f), so tensor power grows with f^3
// in compute-bound work. The rates come from each kernel's time at f: max(its SM cycles / f,
// its HBM bytes / HBM bandwidth) plus its fixed time. The clock is the highest multiple of
// 15 MHz (the step of every clock sample in tests/validation/gpu/data/*_clocks.csv) <= the
// boost clock with P(f) <= tdp_watts. Left out: temperature, leakage's voltage dependence,
// data-dependent toggling (zeros draw less: tests/validation/gpu/README.md), the clock's
// oscillation around the cap (one settled clock per program).

#include <vector>

#include "models/systems/gpu_device/gpu_device_config.h"

namespace systole::models {

/// One kernel's work as the power model sees it.
struct KernelLoad {
  double macs = 0;           ///< tensor MACs, weighted by operand width (16-bit = 1)
  double sm_cycles = 0;      ///< its SM-bound time in SM cycles (scales with 1/f)
  double hbm_bytes = 0;      ///< bytes to and from HBM
  double fixed_seconds = 0;  ///< launch overhead and gaps (clock-independent)
};

/// Board power (W) of `loads` looping at SM clock `f`.
double board_power(const GpuDeviceConfig& d, const std::vector<KernelLoad>& loads, double f);

/// The highest clock (Hz, a multiple of 15 MHz, at most boost_clock) whose board power is at
/// most tdp_watts; the lowest step tried (a quarter of the boost clock) when none is; the SM
/// clock unchanged when the power model is off (boost_clock 0).
double power_limited_clock(const GpuDeviceConfig& d, const std::vector<KernelLoad>& loads);

/// Energy weight of one MAC of `t` against a 16-bit MAC: operand bytes / 2 (fp8, int8 0.5;
/// tf32 2). ASSUMPTION: the multiplier array's switched capacitance per MAC follows operand
/// width, as NVIDIA doubles the fp8 rate within the same board power.
double mac_energy_weight(TcType t);

}  // namespace systole::models
