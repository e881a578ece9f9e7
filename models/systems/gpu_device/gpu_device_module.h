#pragma once
// The SystemC netlist of one GPU: N SMs (GpuSmArrayModule: the tile-level main loop and a copy
// engine per SM) behind the L2 and its crossbar (L2Module: real tags, slices, partitions, the
// far-partition penalty, MSHR merging, write-back), in front of the HBM (bank-level HbmModule,
// or the bandwidth model under hbm.model: bandwidth). It runs a workload's kernels in one
// stream under one sc_start: each kernel pays the launch overhead, then its CTAs run; the next
// starts inter_kernel_gap after. The L2 keeps its contents from kernel to kernel.

#include <systemc>

#include <functional>
#include <memory>
#include <vector>

#include "models/gpu_sm/gpu_sm_module.h"
#include "models/hbm/hbm_module.h"
#include "models/l2/l2_module.h"
#include "models/systems/gpu_device/gpu_device_config.h"
#include "workloads/lowering/gpu_lowering.h"

namespace systole::models {

/// When one kernel ran, and what it did.
struct GpuKernelRun {
  double start_ps = 0;  ///< launch (the overhead starts)
  double end_ps = 0;    ///< last CTA done, last store written
  GemmRun gemm;         ///< GEMM kernels
  StreamRun stream;     ///< streaming kernels
  FlashRun flash;       ///< FlashAttention kernels
  L2Counters l2_before, l2_after;
};

/// One pass over a kernel stream: its kernels (outliving the pass) and, when tracing, the layer
/// of each.
struct GpuPass {
  const std::vector<workloads::GpuKernel>* kernels = nullptr;
  std::vector<std::uint32_t> layers;
};
/// Gives pass p, called in the simulation as the pass starts with pass p - 1's runs (none for
/// p = 0); it may move the clock (GpuDeviceModule::set_clock) before the pass.
using GpuNextPass = std::function<GpuPass(size_t p, const std::vector<GpuKernelRun>& previous)>;

class GpuDeviceModule : public sc_core::sc_module {
 public:
  GpuDeviceModule(const sc_core::sc_module_name& name, const GpuDeviceConfig& cfg);

  /// Runs the kernels in order (one sc_start); one record per kernel.
  std::vector<GpuKernelRun> run(const std::vector<workloads::GpuKernel>& kernels);
  /// Runs `passes` passes back to back in one sc_start (inter_kernel_gap between passes as
  /// between kernels), each pass's kernels from `next`; returns each pass's runs.
  std::vector<std::vector<GpuKernelRun>> run_passes(size_t passes, GpuNextPass next);
  /// Moves the SMs and the L2 to clock `f` between kernels (a board's DVFS step).
  void set_clock(Hz f);
  /// Gives the stream its kernels and where to record them, for a caller that runs several
  /// devices under its own sc_start (both must outlive it). Call before sc_start.
  void load(const std::vector<workloads::GpuKernel>& kernels, std::vector<GpuKernelRun>& runs) {
    kernels_ = &kernels;
    runs_ = &runs;
  }
  /// Records the SMs' copies and the L2's HBM traffic into `rec` (gpu_device_trace.h), each
  /// kernel's under its layer (`kernel_layer`, one per kernel). Call before run().
  void set_trace(TraceRecorder* rec, std::vector<std::uint32_t> kernel_layer);
  /// Called in the stream before kernel i (before its gap), and with i = kernels after the
  /// last: a multi-GPU system runs the collectives that sit there (it may wait). Call before run().
  void set_stream_hook(std::function<void(size_t)> before_kernel) {
    before_kernel_ = std::move(before_kernel);
  }

  const GpuDeviceConfig& config() const { return cfg_; }
  const L2Module& l2() const { return *l2_; }
  const MemoryIf& hbm() const { return *hbm_; }
  /// The bank-level HBM, or nullptr under hbm.model: bandwidth.
  HbmModule* hbm_banks() const { return hbm_banks_; }
  const GpuSmArrayModule& sms() const { return *sms_; }

 private:
  void stream_thread();
  /// Runs one kernel of the stream (its launch overhead and set-up first) into runs_.
  void run_kernel(const workloads::GpuKernel& k, size_t layer_index);

  GpuDeviceConfig cfg_;
  std::unique_ptr<sc_core::sc_module> hbm_module_;
  MemoryIf* hbm_ = nullptr;
  HbmModule* hbm_banks_ = nullptr;
  std::unique_ptr<L2Module> l2_;
  std::unique_ptr<GpuSmArrayModule> sms_;
  const std::vector<workloads::GpuKernel>* kernels_ = nullptr;
  std::vector<GpuKernelRun>* runs_ = nullptr;
  TraceRecorder* trace_ = nullptr;
  std::vector<std::uint32_t> kernel_layer_;
  std::function<void(size_t)> before_kernel_;
  GpuNextPass next_pass_;
  size_t passes_ = 0, passes_done_ = 0;
  std::vector<std::vector<GpuKernelRun>>* pass_runs_ = nullptr;
};

}  // namespace systole::models
