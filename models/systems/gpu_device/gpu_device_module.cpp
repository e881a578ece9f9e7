#include "models/systems/gpu_device/gpu_device_module.h"

#include "models/hbm/hbm_factory.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {
// Requester ids: the SMs towards the L2, 0..sms-1; the L2's fetches and write-backs towards
// the HBM, 0 and 1 (the HBM sees only the L2).
constexpr std::uint16_t kL2Fetches = 0;
}  // namespace

GpuDeviceModule::GpuDeviceModule(const sc_core::sc_module_name& name, const GpuDeviceConfig& cfg)
    : sc_core::sc_module(name), cfg_(cfg) {
  HbmInstance hbm = make_hbm("hbm", cfg.hbm);
  hbm_ = hbm.memory;
  hbm_banks_ = hbm.banks;
  hbm_module_ = std::move(hbm.module);
  l2_ = std::make_unique<L2Module>("l2", cfg.l2, kL2Fetches);
  l2_->memory.bind(*hbm_);
  const int sms = static_cast<int>(cfg.sms);
  // Each SM has as many copies in flight as the L2 accepts from it (l2.transfer_queue).
  sms_ = std::make_unique<GpuSmArrayModule>("sm", cfg.gpu_sm, sms, 0,
                                            static_cast<int>(cfg.l2.transfer_queue));
  sms_->memory.bind(*l2_);
  // The first half of the SMs (their GPCs) sit on partition 0, the rest on partition 1.
  for (int sm = 0; sm < sms; ++sm)
    l2_->set_partition(sms_->requester(sm),
                       static_cast<std::uint32_t>(sm * cfg.l2.partitions / sms));
  SC_HAS_PROCESS(GpuDeviceModule);
  SC_THREAD(stream_thread);
}

void GpuDeviceModule::stream_thread() {
  // run() and run_passes() set the kernels before sc_start, so this thread finds them.
  const sc_core::sc_time gap(static_cast<double>(cfg_.inter_kernel_gap.value()), sc_core::SC_PS);
  if (next_pass_) {
    for (size_t p = 0; p < passes_; ++p) {
      static const std::vector<GpuKernelRun> kNone;
      const GpuPass pass = next_pass_(p, p > 0 ? (*pass_runs_)[p - 1] : kNone);
      if (trace_) kernel_layer_ = pass.layers;
      runs_ = &(*pass_runs_)[p];
      for (size_t i = 0; i < pass.kernels->size(); ++i) {
        if (p > 0 || i > 0) sc_core::wait(gap);
        run_kernel((*pass.kernels)[i], i);
      }
      ++passes_done_;
    }
    return;
  }
  if (!kernels_) return;
  for (size_t i = 0; i < kernels_->size(); ++i) {
    if (before_kernel_) before_kernel_(i);
    if (i > 0) sc_core::wait(gap);
    run_kernel((*kernels_)[i], i);
  }
  if (before_kernel_) before_kernel_(kernels_->size());
}

void GpuDeviceModule::run_kernel(const workloads::GpuKernel& k, size_t layer_index) {
  const sc_core::sc_time launch(static_cast<double>(cfg_.launch_overhead.value()), sc_core::SC_PS);
  if (trace_) trace_->set_layer(kernel_layer_.at(layer_index));
  GpuKernelRun r;
  r.start_ps = sc_core::sc_time_stamp().to_seconds() * 1e12;
  r.l2_before = l2_->timing().counters();
  sc_core::wait(launch + sc_core::sc_time(static_cast<double>(k.setup.value()), sc_core::SC_PS));
  if (k.kind == workloads::GpuKernel::Kind::kGemm)
    r.gemm = sms_->run(k.launch, k.addr, k.works);
  else if (k.kind == workloads::GpuKernel::Kind::kAttention)
    r.flash = sms_->run(k.flash_launch, k.flash_addr);
  else
    r.stream = sms_->run(k.stream);
  r.end_ps = sc_core::sc_time_stamp().to_seconds() * 1e12;
  r.l2_after = l2_->timing().counters();
  runs_->push_back(std::move(r));
}

void GpuDeviceModule::set_clock(Hz f) {
  cfg_.gpu_sm.clock = f;
  cfg_.l2.clock = f;
  sms_->set_clock(f);
  l2_->set_clock(f);
}

void GpuDeviceModule::set_trace(TraceRecorder* rec, std::vector<std::uint32_t> kernel_layer) {
  trace_ = rec != nullptr && rec->on() ? rec : nullptr;
  if (!trace_) return;
  kernel_layer_ = std::move(kernel_layer);
  const std::string self = name();
  trace_->unit(self + ".stream");  // the tracks in this order: kernels, SMs, L2
  sms_->set_trace(trace_, self, self + ".l2");
  l2_->set_trace(trace_, self + ".l2", self + ".hbm");
}

std::vector<GpuKernelRun> GpuDeviceModule::run(const std::vector<workloads::GpuKernel>& kernels) {
  std::vector<GpuKernelRun> runs;
  load(kernels, runs);
  sc_core::sc_start();  // until no event is pending: every kernel done (or a deadlock)
  if (runs.size() != kernels.size())
    throw SimError("gpu_device: the simulation stopped before every kernel finished (deadlock)");
  return runs;
}

std::vector<std::vector<GpuKernelRun>> GpuDeviceModule::run_passes(size_t passes,
                                                                   GpuNextPass next) {
  std::vector<std::vector<GpuKernelRun>> runs(passes);
  next_pass_ = std::move(next);
  passes_ = passes;
  pass_runs_ = &runs;
  sc_core::sc_start();  // until no event is pending: every kernel done (or a deadlock)
  if (passes_done_ != passes)
    throw SimError("gpu_device: the simulation stopped before every kernel finished (deadlock)");
  return runs;
}

}  // namespace systole::models
