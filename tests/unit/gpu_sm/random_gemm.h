#pragma once
// Random GEMM launches for the gpu_sm property tests: tile shapes, warp layouts, stages,
// types, edge tiles, split-K, 1-4 SMs, 1-N CTAs per SM, A100 and H100 rules, random memory
// latency and bandwidth and random instruction latencies. Fixed seeds.

#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_sm_run.h"

namespace systole::test {

/// A LatencyBandwidthPort plus a deterministic per-request jitter, so copies of one CTA may
/// land out of k-tile order (cp.async.wait_group then waits for the older ones too).
class JitterPort : public models::GmemPort {
 public:
  JitterPort(int sms, double bw, double shared, std::uint64_t latency, std::uint64_t jitter)
      : inner_(sms, bw, shared, latency), jitter_(jitter) {}
  Cycles complete(const models::GmemRequest& r) override {
    const Cycles c = inner_.complete(r);
    if (jitter_ == 0) return c;
    const auto h = static_cast<std::uint64_t>(r.cta * 7919 + r.k_tile * 104729 + r.sm * 31);
    return Cycles(c.value() + h % jitter_);
  }

 private:
  models::LatencyBandwidthPort inner_;
  std::uint64_t jitter_;
};

/// Records every request in call order and checks the port contract: nondecreasing issue
/// cycles, requests of one cycle in (SM, slot) order.
class RecordingPort : public models::GmemPort {
 public:
  explicit RecordingPort(models::GmemPort& inner) : inner_(inner) {}
  Cycles complete(const models::GmemRequest& r) override {
    if (!calls_.empty()) {
      const models::GmemRequest& p = calls_.back();
      if (r.issue < p.issue ||
          (r.issue == p.issue && std::make_pair(r.sm, r.slot) < std::make_pair(p.sm, p.slot)))
        ordered_ = false;
    }
    calls_.push_back(r);
    return inner_.complete(r);
  }
  bool ordered() const { return ordered_; }
  /// The calls as comparable tuples.
  std::vector<std::tuple<int, int, std::int64_t, std::int64_t, bool, std::uint64_t, std::uint64_t>>
  calls() const {
    std::vector<
        std::tuple<int, int, std::int64_t, std::int64_t, bool, std::uint64_t, std::uint64_t>>
        v;
    for (const auto& c : calls_)
      v.emplace_back(c.sm, c.slot, c.cta, c.k_tile, c.store, c.bytes.value(), c.issue.value());
    return v;
  }

 private:
  models::GmemPort& inner_;
  std::vector<models::GmemRequest> calls_;
  bool ordered_ = true;
};

struct RandomGemm {
  models::GpuSmConfig sm;
  models::GemmLaunch launch;
  std::int64_t m = 0, n = 0, k = 0, split = 1;
  int sms = 1;
  double sm_bw = 0, shared_bw = 0;
  std::uint64_t latency = 0, jitter = 0;
  JitterPort port() const { return JitterPort(sms, sm_bw, shared_bw, latency, jitter); }
  std::string describe() const {
    const auto& t = launch.tile;
    return fmt::format(
        "{} {} {}x{}x{} warps {}x{} stages {} {} | problem {}x{}x{} split {} | {} SMs, max "
        "resident {} | port {:.0f} B/clk (shared {:.0f}) + {} (jitter {}) | mma lat {} wgmma lat "
        "{} smem "
        "lat {}",
        models::gpu_arch_name(sm.arch),
        t.instr == models::MmaInstr::kWgmma ? (t.swap_ab ? "wgmma(swap_ab)" : "wgmma") : "mma.sync",
        t.bm, t.bn, t.bk, t.warps_m, t.warps_n, t.stages, models::tc_type_name(t.in_type), m, n, k,
        split, sms, launch.max_resident, sm_bw, shared_bw, latency, jitter, sm.mma_latency,
        sm.wgmma_latency, sm.smem_latency);
  }
};

inline std::int64_t pick(std::mt19937& g, std::initializer_list<std::int64_t> v) {
  std::uniform_int_distribution<size_t> d(0, v.size() - 1);
  return *(v.begin() + static_cast<std::ptrdiff_t>(d(g)));
}

inline std::int64_t uniform(std::mt19937& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

/// A random case; `max_tiles` bounds the output tiles per dimension (keeps the reference fast).
inline RandomGemm random_gemm(std::mt19937& g, std::int64_t max_tiles = 3) {
  using namespace models;
  RandomGemm r;
  const bool hopper = uniform(g, 0, 1) == 1;
  r.sm = hopper ? h100_sxm5_sm() : a100_sxm4_sm();
  r.sm.mma_latency = uniform(g, 1, 64);
  r.sm.wgmma_latency = uniform(g, 0, 64);
  r.sm.smem_latency = uniform(g, 0, 40);
  // Other pipe ratios than the presets': shared-memory banks (ldmatrix.x4 on 8 to 32 cycles of
  // a sub-partition's share) and tensor rates (mma.sync on 2 to 32 cycles).
  r.sm.smem_banks = pick(g, {16, 32, 64});
  const std::int64_t scale = pick(g, {1, 2, 4, 8});
  const bool up = uniform(g, 0, 1) == 1 && scale <= 2;
  for (std::int64_t* rate : {&r.sm.tc_fp16_fma, &r.sm.tc_bf16_fma, &r.sm.tc_tf32_fma,
                             &r.sm.tc_fp8_fma, &r.sm.tc_int8_mac})
    *rate = up ? *rate * scale : *rate / scale;
  GemmCtaTile& t = r.launch.tile;
  const bool wgmma = hopper && uniform(g, 0, 2) > 0;
  std::vector<TcType> types = {TcType::kFp16, TcType::kBf16, TcType::kTf32, TcType::kInt8};
  if (hopper) {
    types.push_back(TcType::kFp8E4M3);
    types.push_back(TcType::kFp8E5M2);
  }
  t.in_type =
      types[static_cast<size_t>(uniform(g, 0, static_cast<std::int64_t>(types.size()) - 1))];
  const std::int64_t kin = 32 / tc_type_bytes(t.in_type);
  t.bk = kin * pick(g, {1, 2, 4});
  t.stages = uniform(g, 2, 5);
  t.regs_per_thread = pick(g, {32, 64, 96, 128, 168});
  t.out_bytes = pick(g, {2, 4});
  t.epilogue_fp32_ops = uniform(g, 0, 2);
  t.epilogue_sfu_ops = uniform(g, 0, 1);
  if (wgmma) {
    t.instr = MmaInstr::kWgmma;
    t.copy = CopyEngine::kTma;
    t.warps_m = pick(g, {1, 2});
    t.warps_n = pick(g, {1, 2});
    t.swap_ab = uniform(g, 0, 3) == 0;  // cuBLAS's skinny-M kernels: wgmma M along the tile's N
    t.bm = t.swap_ab ? t.warps_m * 8 * uniform(g, 1, 8) : t.warps_m * 64 * pick(g, {1, 2});
    t.bn = t.swap_ab ? t.warps_n * 64 * pick(g, {1, 2, 3}) : t.warps_n * 8 * uniform(g, 1, 12);
  } else {
    t.warps_m = pick(g, {1, 2, 4});
    t.warps_n = pick(g, {1, 2, 4});
    t.bm = t.warps_m * 16 * pick(g, {1, 2, 4});
    t.bn = t.warps_n * 16 * pick(g, {1, 2, 4});
  }
  // Registers: as many as let one CTA fit (warps x regs x 32 within each sub-partition's 16K).
  const std::int64_t warps = (wgmma ? 4 : 0) + t.warps_m * t.warps_n * (wgmma ? 4 : 1);
  const std::int64_t per_sp_warps = (warps + 3) / 4;
  t.regs_per_thread = std::min(t.regs_per_thread, 16384 / (per_sp_warps * 32) / 8 * 8);
  // Shrink the stages until one CTA fits in shared memory.
  while (t.stages > 2 &&
         static_cast<std::uint64_t>(t.stages * (t.bm + t.bn) * t.bk * tc_type_bytes(t.in_type)) >
             r.sm.smem_per_block.value() / 2)
    --t.stages;
  r.m = uniform(g, 1, t.bm * max_tiles);
  r.n = uniform(g, 1, t.bn * max_tiles);
  r.k = uniform(g, 1, t.bk * 5);
  r.split = std::min<std::int64_t>(uniform(g, 1, 3), r.k);
  r.sms = static_cast<int>(uniform(g, 1, 4));
  r.launch.max_resident = uniform(g, 1, 4);
  r.sm_bw = static_cast<double>(uniform(g, 8, 256));
  r.shared_bw = uniform(g, 0, 1) ? static_cast<double>(uniform(g, 16, 512)) : 0.0;
  r.latency = static_cast<std::uint64_t>(uniform(g, 1, 800));
  r.jitter = uniform(g, 0, 3) == 0 ? static_cast<std::uint64_t>(uniform(g, 1, 400)) : 0;
  // The grid: output tiles x K slices, dealt round-robin to the SMs.
  r.launch.per_sm.assign(static_cast<size_t>(r.sms), {});
  const std::int64_t slice = (r.k + r.split - 1) / r.split;
  std::int64_t id = 0;
  for (std::int64_t m0 = 0; m0 < r.m; m0 += t.bm)
    for (std::int64_t n0 = 0; n0 < r.n; n0 += t.bn)
      for (std::int64_t k0 = 0; k0 < r.k; k0 += slice) {
        CtaWork w{id,
                  m0,
                  n0,
                  std::min(t.bm, r.m - m0),
                  std::min(t.bn, r.n - n0),
                  k0,
                  std::min(slice, r.k - k0)};
        r.launch.per_sm[static_cast<size_t>(id % r.sms)].push_back(w);
        ++id;
      }
  return r;
}

}  // namespace systole::test
