#include "models/gpu_sm/gpu_sm_warp_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>

#include "models/gpu_sm/tensor_math.h"
#include "models/gpu_sm/warp_program.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();
/// Cycles without any issue or memory answer after which the reference declares a deadlock.
constexpr std::uint64_t kStallLimit = 50'000'000;

struct Warp {
  std::vector<WarpSection> prog;
  size_t sec = 0, ins = 0;
  std::int64_t sp = 0;
  std::uint64_t frag_ready[2] = {0, 0};
  std::vector<std::uint64_t> acc_ready;   ///< per mma.sync accumulator fragment
  std::vector<std::uint64_t> group_done;  ///< per k-tile: its wgmma group's completion
  bool done() const { return sec >= prog.size(); }
};

struct Cta {
  CtaWork work;
  int slot = 0;
  std::uint64_t age = 0, start = 0;
  size_t record = 0;
  std::vector<Warp> warps;
  std::vector<std::int64_t> cp_count, bar_count, empty_count;
  std::vector<std::uint64_t> bar_last, empty_last, arrived, arrived_all;
  std::int64_t stores = 0;
  size_t warps_done = 0;
  std::vector<float> acc_f;
  std::vector<std::int32_t> acc_i;
};

struct SubPartition {
  int holder_slot = -1;
  size_t holder_warp = 0;
  std::uint64_t pipe_free = 0, smem_free = 0, fp_free = 0, sfu_free = 0;
};

struct Pending {
  int sm, slot;
  std::int64_t kt;
  bool store;
};

class Engine {
 public:
  Engine(const GpuSmConfig& c, GmemPort& port, const GemmLaunch& l, const GemmOperands* ops,
         std::vector<CtaResult>* results)
      : cfg_(c),
        port_(port),
        launch_(l),
        shape_(mainloop_shape(c, l.tile)),
        ops_(ops),
        results_(results) {}

  GemmRun run();

 private:
  void launch(int sm, int slot, std::uint64_t start);
  bool ready(const Cta& c, const Warp& w, std::uint64_t t) const;
  void schedule(int sm, std::int64_t p, std::uint64_t t);
  bool issue(int sm, SubPartition& sp, Cta& c, size_t wi, std::uint64_t t);
  void end_cycle(std::uint64_t t);
  void answer(const Pending& p, std::uint64_t t);
  void finish(int sm, int slot, std::uint64_t t);
  void mma_math(Cta& c, size_t wi, const WarpInstr& x);
  void tile_math(Cta& c, std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols,
                 std::int64_t kk0);

  const GpuSmConfig& cfg_;
  GmemPort& port_;
  const GemmLaunch& launch_;
  MainloopShape shape_;
  const GemmOperands* ops_;
  std::vector<CtaResult>* results_;
  std::vector<std::vector<std::unique_ptr<Cta>>> slots_;
  std::vector<std::vector<SubPartition>> sps_;
  std::vector<size_t> next_;
  std::vector<std::uint64_t> ages_;
  std::vector<Pending> pending_;
  std::uint64_t progress_ = 0;
  size_t active_ = 0;
  GemmRun run_;
};

GemmRun Engine::run() {
  SYSTOLE_ASSERT(!ops_ || ops_->type == launch_.tile.in_type,
                 "the operands' type differs from the tile's input type");
  const int sms = static_cast<int>(launch_.per_sm.size());
  run_.resident = resident_ctas(cfg_, launch_);
  run_.sms.assign(static_cast<size_t>(sms), {});
  slots_.resize(static_cast<size_t>(sms));
  sps_.assign(static_cast<size_t>(sms),
              std::vector<SubPartition>(static_cast<size_t>(cfg_.sub_partitions)));
  next_.assign(static_cast<size_t>(sms), 0);
  ages_.assign(static_cast<size_t>(sms), 0);
  for (int sm = 0; sm < sms; ++sm) {
    slots_[static_cast<size_t>(sm)].resize(static_cast<size_t>(run_.resident));
    for (int slot = 0; slot < run_.resident; ++slot) launch(sm, slot, 0);
  }
  for (std::uint64_t t = 0; active_ > 0; ++t) {
    for (int sm = 0; sm < sms; ++sm)
      for (std::int64_t p = 0; p < cfg_.sub_partitions; ++p) schedule(sm, p, t);
    end_cycle(t);
    if (t - progress_ > kStallLimit)
      throw SimError(fmt::format("gpu_sm warp model: no progress since cycle {}", progress_));
  }
  for (const auto& r : run_.ctas) run_.cycles = std::max({run_.cycles, r.finish, r.store_done});
  return run_;
}

void Engine::launch(int sm, int slot, std::uint64_t start) {
  auto& next = next_[static_cast<size_t>(sm)];
  const auto& list = launch_.per_sm[static_cast<size_t>(sm)];
  if (next >= list.size()) return;
  auto c = std::make_unique<Cta>();
  c->work = list[next++];
  check_cta_work(launch_.tile, c->work);
  if (ops_)
    SYSTOLE_ASSERT(c->work.m0 + c->work.m <= ops_->m && c->work.n0 + c->work.n <= ops_->n &&
                       c->work.k0 + c->work.k <= ops_->k,
                   "CTA outside the operands");
  c->slot = slot;
  c->age = ages_[static_cast<size_t>(sm)]++;
  c->start = start;
  const auto kts = static_cast<size_t>(shape_.k_tiles(c->work));
  for (std::int64_t w = 0; w < shape_.warps; ++w) {
    Warp warp;
    warp.prog = warp_program(shape_, c->work, w);
    warp.sp = shape_.sp_of(w, cfg_.sub_partitions);
    warp.acc_ready.assign(static_cast<size_t>(shape_.mma_per_step), 0);
    warp.group_done.assign(kts, 0);
    if (warp.done()) ++c->warps_done;
    c->warps.push_back(std::move(warp));
  }
  c->cp_count.assign(kts, 0);
  c->bar_count.assign(kts, 0);
  c->empty_count.assign(kts, 0);
  c->bar_last.assign(kts, 0);
  c->empty_last.assign(kts, 0);
  c->arrived.assign(kts, kUnknown);
  c->arrived_all.assign(kts, kUnknown);
  if (ops_) {
    const auto n = static_cast<size_t>(shape_.bm * shape_.bn);
    if (ops_->type == TcType::kInt8)
      c->acc_i.assign(n, 0);
    else
      c->acc_f.assign(n, 0.0f);
  }
  CtaRecord r;
  r.id = c->work.id;
  r.sm = sm;
  r.slot = slot;
  r.start = start;
  r.copy_issue.assign(kts, 0);
  r.copy_done.assign(kts, 0);
  c->record = run_.ctas.size();
  run_.ctas.push_back(std::move(r));
  slots_[static_cast<size_t>(sm)][static_cast<size_t>(slot)] = std::move(c);
  ++active_;
}

bool Engine::ready(const Cta& c, const Warp& w, std::uint64_t t) const {
  if (t < c.start || w.done()) return false;
  const WarpSection& s = w.prog[w.sec];
  const auto kt = static_cast<size_t>(s.kt);
  switch (s.wait) {
    case WarpWait::kLaunch:
      return true;
    case WarpWait::kBarrier:
      return c.bar_count[kt] == shape_.compute_warps && c.bar_last[kt] < t &&
             c.arrived_all[kt] <= t;
    case WarpWait::kFull:
      return c.arrived[kt] <= t;
    case WarpWait::kGroupDone:
      return w.group_done[kt] <= t;
    case WarpWait::kEmpty: {
      if (s.kt < shape_.stages) return true;
      const auto prev = kt - static_cast<size_t>(shape_.stages);
      return c.empty_count[prev] == shape_.compute_warps && c.empty_last[prev] < t;
    }
    case WarpWait::kAccum:
      return *std::max_element(w.acc_ready.begin(), w.acc_ready.end()) <= t;
  }
  return false;
}

void Engine::schedule(int sm, std::int64_t p, std::uint64_t t) {
  SubPartition& sp = sps_[static_cast<size_t>(sm)][static_cast<size_t>(p)];
  auto& slots = slots_[static_cast<size_t>(sm)];
  if (sp.holder_slot < 0) {
    // The oldest CTA's lowest warp whose next section may start (README: scheduler rule).
    std::tuple<std::uint64_t, size_t, int> best{kUnknown, 0, -1};
    for (size_t s = 0; s < slots.size(); ++s) {
      const Cta* c = slots[s].get();
      if (!c) continue;
      for (size_t w = 0; w < c->warps.size(); ++w)
        if (c->warps[w].sp == p && ready(*c, c->warps[w], t) &&
            std::make_tuple(c->age, w) < std::make_tuple(std::get<0>(best), std::get<1>(best)))
          best = {c->age, w, static_cast<int>(s)};
    }
    if (std::get<2>(best) < 0) return;
    sp.holder_slot = std::get<2>(best);
    sp.holder_warp = std::get<1>(best);
  }
  issue(sm, sp, *slots[static_cast<size_t>(sp.holder_slot)], sp.holder_warp, t);
}

bool Engine::issue(int sm, SubPartition& sp, Cta& c, size_t wi, std::uint64_t t) {
  Warp& w = c.warps[wi];
  const WarpInstr& x = w.prog[w.sec].instrs[w.ins];
  SmActivity& act = run_.sms[static_cast<size_t>(sm)];
  const auto kt = static_cast<size_t>(x.kt);
  const auto ii = static_cast<std::uint64_t>(shape_.mma_ii);
  switch (x.op) {
    case WarpOp::kCpAsync:
    case WarpOp::kTma:
      // cp.async's shared-memory writes take the sub-partition's bank share as ldmatrix does
      // (reserved at issue, in program order; TMA's cp_smem_cycles are 0).
      if (shape_.cp_smem_cycles) {
        sp.smem_free =
            std::max(t, sp.smem_free) + static_cast<std::uint64_t>(shape_.cp_smem_cycles);
        act.smem_busy += static_cast<std::uint64_t>(shape_.cp_smem_cycles);
      }
      ++act.copies;
      if (x.last && (x.op == WarpOp::kTma || ++c.cp_count[kt] == shape_.compute_warps))
        pending_.push_back({sm, c.slot, x.kt, false});
      break;
    case WarpOp::kLdmatrix: {
      const std::uint64_t start = std::max(t, sp.smem_free);
      sp.smem_free = start + static_cast<std::uint64_t>(shape_.ldm_cycles);
      const std::uint64_t data = sp.smem_free + static_cast<std::uint64_t>(cfg_.smem_latency);
      std::uint64_t& f = w.frag_ready[x.buf];
      f = x.first ? data : std::max(f, data);
      ++act.ldmatrix;
      act.smem_busy += static_cast<std::uint64_t>(shape_.ldm_cycles);
      break;
    }
    case WarpOp::kMma: {
      std::uint64_t& acc = w.acc_ready[static_cast<size_t>(x.idx)];
      if (sp.pipe_free > t || w.frag_ready[x.buf] > t || acc > t) return false;
      sp.pipe_free = t + ii;
      acc = t + static_cast<std::uint64_t>(cfg_.mma_latency);
      ++act.mma;
      act.tensor_busy += ii;
      mma_math(c, wi, x);
      break;
    }
    case WarpOp::kWgmma: {
      const std::uint64_t start = std::max(t, sp.pipe_free);
      sp.pipe_free = start + ii;
      w.group_done[kt] =
          std::max(w.group_done[kt], sp.pipe_free + static_cast<std::uint64_t>(cfg_.wgmma_latency));
      ++act.mma;
      act.tensor_busy += ii;
      mma_math(c, wi, x);
      break;
    }
    case WarpOp::kBarSync:
      ++c.bar_count[kt];
      c.bar_last[kt] = std::max(c.bar_last[kt], t);
      break;
    case WarpOp::kArrive:
      ++c.empty_count[kt];
      c.empty_last[kt] = std::max(c.empty_last[kt], t);
      break;
    case WarpOp::kFp32:
      if (sp.fp_free > t) return false;
      sp.fp_free = t + static_cast<std::uint64_t>(shape_.fp32_cycles);
      ++act.fp32;
      break;
    case WarpOp::kSfu:
      if (sp.sfu_free > t) return false;
      sp.sfu_free = t + static_cast<std::uint64_t>(shape_.sfu_cycles);
      ++act.sfu;
      break;
    case WarpOp::kStore:
      if (x.last && ++c.stores == shape_.compute_warps) pending_.push_back({sm, c.slot, -1, true});
      break;
  }
  ++act.instructions;
  progress_ = t;
  if (++w.ins == w.prog[w.sec].instrs.size()) {
    w.ins = 0;
    ++w.sec;
    sp.holder_slot = -1;
    if (w.done()) ++c.warps_done;
  }
  return true;
}

void Engine::end_cycle(std::uint64_t t) {
  std::sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
    return std::tie(a.sm, a.slot, a.store, a.kt) < std::tie(b.sm, b.slot, b.store, b.kt);
  });
  for (const Pending& p : pending_) answer(p, t);
  pending_.clear();
  for (size_t sm = 0; sm < slots_.size(); ++sm)
    for (size_t s = 0; s < slots_[sm].size(); ++s) {
      const Cta* c = slots_[sm][s].get();
      if (c && c->warps_done == c->warps.size())
        finish(static_cast<int>(sm), static_cast<int>(s), t);
    }
}

void Engine::answer(const Pending& p, std::uint64_t t) {
  Cta& c = *slots_[static_cast<size_t>(p.sm)][static_cast<size_t>(p.slot)];
  CtaRecord& r = run_.ctas[c.record];
  const std::uint64_t done =
      port_.complete(gemm_request(shape_, c.work, p.sm, p.slot, p.kt, p.store, t)).value();
  if (done <= t) throw SimError("gpu_sm: the memory port answered no later than the request");
  progress_ = t;
  if (p.store) {
    r.store_issue = t;
    r.store_done = done;
    return;
  }
  const auto kt = static_cast<size_t>(p.kt);
  r.copy_issue[kt] = t;
  r.copy_done[kt] = done;
  c.arrived[kt] = done;
  const std::uint64_t before = kt == 0 ? 0 : c.arrived_all[kt - 1];
  SYSTOLE_ASSERT(before != kUnknown, "copies answered out of k-tile order");
  c.arrived_all[kt] = std::max(before, done);
}

void Engine::finish(int sm, int slot, std::uint64_t t) {
  auto& cell = slots_[static_cast<size_t>(sm)][static_cast<size_t>(slot)];
  run_.ctas[cell->record].finish = t + 1;
  if (results_) {
    CtaResult res;
    res.id = cell->work.id;
    for (std::int64_t i = 0; i < cell->work.m; ++i)
      for (std::int64_t j = 0; j < cell->work.n; ++j) {
        const auto at = static_cast<size_t>(i * shape_.bn + j);
        if (cell->acc_i.empty())
          res.f.push_back(cell->acc_f.empty() ? 0.0f : cell->acc_f[at]);
        else
          res.i.push_back(cell->acc_i[at]);
      }
    results_->push_back(std::move(res));
  }
  cell.reset();
  --active_;
  launch(sm, slot, t + 1);
}

void Engine::mma_math(Cta& c, size_t wi, const WarpInstr& x) {
  if (!ops_) return;
  const std::int64_t kk0 = static_cast<std::int64_t>(x.kt) * shape_.bk + x.step * shape_.k_instr;
  const std::int64_t wn = launch_.tile.warps_n;
  if (!shape_.wgmma) {
    const auto w = static_cast<std::int64_t>(wi);
    const std::int64_t nj = shape_.wn / 8;
    tile_math(c, (w / wn) * shape_.wm + (x.idx / nj) * 16, 16,
              (w % wn) * shape_.wn + (x.idx % nj) * 8, 8, kk0);
    return;
  }
  // Consumer warp q of warpgroup g computes rows q*16..q*16+15 of each of its m64 wgmmas
  // (swapped operands: columns q*16..q*16+15 of each m64 block of its columns).
  const auto cw = static_cast<std::int64_t>(wi) - shape_.first_compute_warp;
  const std::int64_t g = cw / 4, q = cw % 4;
  if (launch_.tile.swap_ab) {
    tile_math(c, (g / wn) * shape_.wm, shape_.wm, (g % wn) * shape_.wn + x.idx * 64 + q * 16, 16,
              kk0);
    return;
  }
  tile_math(c, (g / wn) * shape_.wm + x.idx * 64 + q * 16, 16, (g % wn) * shape_.wn, shape_.wn,
            kk0);
}

void Engine::tile_math(Cta& c, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                       std::int64_t cols, std::int64_t kk0) {
  // The fragments as shared memory holds them: zero beyond the CTA's real extent (CUTLASS's
  // predicated, zero-filling copies).
  const std::int64_t kin = shape_.k_instr;
  std::vector<std::uint32_t> a(static_cast<size_t>(rows * kin), 0),
      b(static_cast<size_t>(kin * cols), 0);
  const CtaWork& w = c.work;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t q = 0; q < kin; ++q)
      if (row0 + i < w.m && kk0 + q < w.k)
        a[static_cast<size_t>(i * kin + q)] =
            ops_->a[static_cast<size_t>((w.m0 + row0 + i) * ops_->k + w.k0 + kk0 + q)];
  for (std::int64_t q = 0; q < kin; ++q)
    for (std::int64_t j = 0; j < cols; ++j)
      if (col0 + j < w.n && kk0 + q < w.k)
        b[static_cast<size_t>(q * cols + j)] =
            ops_->b[static_cast<size_t>((w.k0 + kk0 + q) * ops_->n + w.n0 + col0 + j)];
  const auto at = static_cast<size_t>(row0 * shape_.bn + col0);
  tc_mma(ops_->type, a.data(), kin, b.data(), cols, rows, cols, kin,
         c.acc_f.empty() ? nullptr : c.acc_f.data() + at,
         c.acc_i.empty() ? nullptr : c.acc_i.data() + at, shape_.bn);
}

}  // namespace

GemmRun GpuSmWarpModel::run(const GemmLaunch& launch, const GemmOperands* ops,
                            std::vector<CtaResult>* results) {
  return Engine(cfg_, port_, launch, ops, results).run();
}

}  // namespace systole::models
