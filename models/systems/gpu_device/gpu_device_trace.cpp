#include "models/systems/gpu_device/gpu_device_trace.h"

#include <cmath>

namespace systole::models {

namespace {

const char* kernel_kind(workloads::GpuKernel::Kind k) {
  switch (k) {
    case workloads::GpuKernel::Kind::kGemm:
      return "gemm kernel";
    case workloads::GpuKernel::Kind::kAttention:
      return "attention kernel";
    case workloads::GpuKernel::Kind::kStream:
      break;
  }
  return "memory kernel";  // elementwise, norms, split-K reductions
}

/// HBM bytes the L2 fetched and wrote back while the kernel ran.
std::uint64_t hbm_bytes(const GpuDeviceConfig& d, const GpuKernelRun& r) {
  return (r.l2_after.sectors_fetched - r.l2_before.sectors_fetched + r.l2_after.writeback_sectors -
          r.l2_before.writeback_sectors) *
         d.l2.sector.value();
}

/// One CTA (GEMM or FlashAttention record) on its SM's track.
template <class Cta>
void add_cta(TraceRecorder& rec, const std::vector<std::uint32_t>& sm_unit, std::uint16_t kind,
             double t0_ps, double period_ps, const Cta& c) {
  rec.add(sm_unit.at(static_cast<size_t>(c.sm)), kind,
          t0_ps + period_ps * static_cast<double>(c.start),
          t0_ps + period_ps * static_cast<double>(c.finish), 0);
}

}  // namespace

std::vector<std::uint32_t> kernel_layers(const workloads::GpuProgram& p) {
  std::vector<std::uint32_t> out;
  for (const auto& k : p.kernels) out.push_back(static_cast<std::uint32_t>(k.layer));
  return out;
}

void trace_kernels(TraceRecorder& rec, const std::string& device, const GpuDeviceModule& top,
                   const workloads::GpuProgram& p, const std::vector<GpuKernelRun>& runs) {
  const GpuDeviceConfig& d = top.config();
  const std::uint32_t stream = rec.unit(device + ".stream");
  std::vector<std::uint32_t> sm_unit;
  for (int sm = 0; sm < top.sms().sms(); ++sm)
    sm_unit.push_back(rec.unit(device + ".sm" + std::to_string(sm)));
  const std::uint16_t cta = rec.kind("cta");
  const double period = static_cast<double>(top.sms().period().value());
  for (size_t k = 0; k < runs.size(); ++k) {
    const auto& kern = p.kernels.at(k);
    const GpuKernelRun& r = runs[k];
    rec.set_layer(static_cast<std::uint32_t>(kern.layer));
    rec.add(stream, rec.kind(kernel_kind(kern.kind)), r.start_ps, r.end_ps, hbm_bytes(d, r));
    // The CTAs' cycles count from the launch overhead's and the set-up's end
    // (GpuSmArrayModule::run).
    const double t0 =
        r.start_ps + static_cast<double>(d.launch_overhead.value() + kern.setup.value());
    for (const auto& c : r.gemm.ctas) add_cta(rec, sm_unit, cta, t0, period, c);
    for (const auto& c : r.flash.ctas) add_cta(rec, sm_unit, cta, t0, period, c);
  }
}

void trace_to_cycles(stats::Trace& t, double period_ps) {
  for (auto& e : t.events) {
    e.begin = static_cast<std::uint64_t>(std::llround(static_cast<double>(e.begin) / period_ps));
    e.end = static_cast<std::uint64_t>(std::llround(static_cast<double>(e.end) / period_ps));
  }
}

}  // namespace systole::models
