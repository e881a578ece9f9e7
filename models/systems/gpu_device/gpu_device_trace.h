#pragma once
// The GPU device's operation trace (simrun output.trace: true). While the device runs, its
// modules record into a TraceRecorder: each SM's copy engine (cp.async / TMA) its copies
// (L2 -> shared memory) and stores (shared memory -> L2) on unit "gpu0.smN.copy", and the L2
// its fetches from HBM and write-backs to HBM on "gpu0.l2". After the run the kernel stream
// ("gpu0.stream": one slice per kernel, launch overhead included) and each SM's CTAs
// ("gpu0.smN": first issue to last instruction) come from the run records, and every time is
// converted from picoseconds to SM cycles. The tile-level SM model keeps no timeline of its
// tensor pipes or of the L2's slices (only their busy counts), so neither has a track.

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/trace_recorder.h"
#include "models/systems/gpu_device/gpu_device_module.h"
#include "workloads/lowering/gpu_lowering.h"

namespace systole::models {

/// Each kernel's layer, for the recorder (GpuDeviceModule::set_trace).
std::vector<std::uint32_t> kernel_layers(const workloads::GpuProgram& p);

/// Adds the kernel stream and the CTAs of every GEMM and FlashAttention kernel, timed in
/// picoseconds like the modules' records; `device` is the device's instance path.
void trace_kernels(TraceRecorder& rec, const std::string& device, const GpuDeviceModule& top,
                   const workloads::GpuProgram& p, const std::vector<GpuKernelRun>& runs);

/// Converts the events' picoseconds to cycles of `period_ps` (the SM clock's period).
void trace_to_cycles(stats::Trace& t, double period_ps);

}  // namespace systole::models
