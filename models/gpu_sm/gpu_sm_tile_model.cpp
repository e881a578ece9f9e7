#include "models/gpu_sm/gpu_sm_tile_model.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "sim/core/error.h"

namespace systole::models {

namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();
using u64 = std::uint64_t;

/// A warp's sections in order (the reference's warp_program, by kind and k-tile).
enum class Kind { kPrologue, kMain, kEpilogue, kTma, kWgmma, kRelease };

struct WarpT {
  std::int64_t sp = 0;
  bool producer = false;
  size_t sec = 0, sections = 0;
  u64 ready = kUnknown;    ///< when its next section may start, once known
  u64 t_prev0 = kUnknown;  ///< first mma of its latest k-step
  u64 acc_all = 0;         ///< every accumulator written
  u64 frag[2] = {0, 0};    ///< when each fragment buffer's loads land
  u64 next_step = 0;       ///< k-steps loaded so far (fragment buffers alternate)
  int pending = -1;        ///< buffer of the k-step whose mma.sync are still to issue
  std::vector<u64> group_done;
  bool done() const { return sec >= sections; }
};

struct CtaT {
  CtaWork work;
  int slot = 0;
  u64 age = 0, start = 0, last_issue = 0;
  std::int64_t kts = 0;
  size_t record = 0;
  std::vector<WarpT> warps;
  std::vector<std::int64_t> cp_count, bar_count, empty_count;
  std::vector<u64> cp_last, bar_last, empty_last, arrived, arrived_all;
  std::int64_t stores = 0;
  u64 store_last = 0;
  size_t warps_done = 0;
};

struct SpT {
  u64 sched_free = 0, pipe_free = 0, smem_free = 0, fp_free = 0, sfu_free = 0;
  u64 queued = kUnknown;  ///< the one dispatch event that counts (later ones are stale)
};

/// Events of one time are handled launches first, then scheduler dispatches, then memory
/// requests in (sm, slot, store, k-tile) order, as the reference does within a cycle.
struct Ev {
  u64 t;
  int cls;  // 0 launch, 1 dispatch, 2 memory
  int sm, slot;
  bool store;
  std::int64_t kt;
  auto key() const { return std::tie(t, cls, sm, slot, store, kt); }
  bool operator>(const Ev& o) const { return key() > o.key(); }
};

}  // namespace

class GpuSmTileStepper::Fast {
 public:
  Fast(const GpuSmConfig& c, GmemPort& port, const GemmLaunch& l)
      : cfg_(c), port_(port), launch_(l), s_(mainloop_shape(c, l.tile)) {
    start();
  }
  std::uint64_t next_time() const { return q_.empty() ? kUnknown : q_.top().t; }
  std::size_t pending() const { return pending_.size(); }
  void step();
  void arrived(std::uint64_t token, std::uint64_t done);
  GemmRun finish();

 private:
  std::pair<Kind, std::int64_t> section_of(const CtaT& c, const WarpT& w) const;
  u64 ready_time(const CtaT& c, const WarpT& w) const;
  /// Learns when warps of `c` may start their next sections (all warps, or only `only`).
  void update_ready(int sm, CtaT& c, const WarpT* only = nullptr);
  /// Whether a section's effects may let other warps of the CTA start: a barrier or a stage
  /// slot all compute warps have now reached.
  bool releases_others(const CtaT& c, Kind kind, std::int64_t kt) const;
  void launch(int sm, int slot, u64 t);
  void dispatch(int sm, std::int64_t p, u64 t);
  /// Makes sure sub-partition p looks for a section to start no later than t.
  void wake(int sm, std::int64_t p, u64 t);
  u64 execute(int sm, SpT& sp, CtaT& c, WarpT& w, u64 t0);
  u64 prologue(int sm, SpT& sp, CtaT& c, u64 t0);
  void copy_banks(int sm, SpT& sp, u64 t, u64 n);
  u64 main_ktile(int sm, SpT& sp, CtaT& c, WarpT& w, std::int64_t kt, u64 t0);
  u64 wgmma_group(int sm, SpT& sp, WarpT& w, const CtaT& c, std::int64_t kt, u64 t0);
  u64 epilogue(int sm, SpT& sp, CtaT& c, u64 t0);
  void copy_issued(int sm, CtaT& c, std::int64_t kt, u64 t);
  void start();
  void memory(const Ev& e);
  /// Request `e` completes at `done`: records it and lets the CTA's warps see the data.
  void answered(const Ev& e, size_t record, u64 done);
  void push(u64 t, int cls, int sm, int slot, bool store = false, std::int64_t kt = 0) {
    q_.push({t, cls, sm, slot, store, kt});
  }
  SmActivity& act(int sm) { return run_.sms[static_cast<size_t>(sm)]; }

  const GpuSmConfig& cfg_;
  GmemPort& port_;
  const GemmLaunch& launch_;
  MainloopShape s_;
  std::vector<std::vector<size_t>> sp_warps_;  ///< warps of a CTA on each sub-partition
  std::vector<std::vector<CtaT>> slots_;
  std::vector<std::vector<bool>> live_;
  std::vector<std::vector<SpT>> sps_;
  std::vector<size_t> next_;
  std::vector<u64> ages_;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q_;
  struct Pending {
    Ev e;
    size_t record;
  };
  std::unordered_map<std::uint64_t, Pending> pending_;  ///< requests a late port still owes
  std::uint64_t next_token_ = 1;
  GemmRun run_;
};

void GpuSmTileStepper::Fast::start() {
  const auto sms = launch_.per_sm.size();
  run_.resident = resident_ctas(cfg_, launch_);
  run_.sms.assign(sms, {});
  const auto res = static_cast<size_t>(run_.resident);
  slots_.assign(sms, std::vector<CtaT>(res));
  live_.assign(sms, std::vector<bool>(res, false));
  sps_.assign(sms, std::vector<SpT>(static_cast<size_t>(cfg_.sub_partitions)));
  next_.assign(sms, 0);
  ages_.assign(sms, 0);
  sp_warps_.assign(static_cast<size_t>(cfg_.sub_partitions), {});
  for (std::int64_t w = 0; w < s_.warps; ++w)
    sp_warps_[static_cast<size_t>(s_.sp_of(w, cfg_.sub_partitions))].push_back(
        static_cast<size_t>(w));
  for (size_t sm = 0; sm < sms; ++sm)
    for (size_t slot = 0; slot < res; ++slot)
      push(0, 0, static_cast<int>(sm), static_cast<int>(slot));
}

void GpuSmTileStepper::Fast::step() {
  const Ev e = q_.top();
  q_.pop();
  if (e.cls == 0) launch(e.sm, e.slot, e.t);
  if (e.cls == 1) dispatch(e.sm, e.slot, e.t);
  if (e.cls == 2) memory(e);
}

GemmRun GpuSmTileStepper::Fast::finish() {
  SYSTOLE_ASSERT(q_.empty() && pending_.empty(), "gpu_sm: finish() before the launch ended");
  run_.cycles = 0;
  for (const auto& r : run_.ctas) run_.cycles = std::max({run_.cycles, r.finish, r.store_done});
  return std::move(run_);
}

void GpuSmTileStepper::Fast::launch(int sm, int slot, u64 t) {
  auto& next = next_[static_cast<size_t>(sm)];
  const auto& list = launch_.per_sm[static_cast<size_t>(sm)];
  live_[static_cast<size_t>(sm)][static_cast<size_t>(slot)] = false;
  if (next >= list.size()) return;
  CtaT c;
  c.work = list[next++];
  check_cta_work(launch_.tile, c.work);
  c.slot = slot;
  c.age = ages_[static_cast<size_t>(sm)]++;
  c.start = t;
  c.kts = s_.k_tiles(c.work);
  const auto kts = static_cast<size_t>(c.kts);
  for (std::int64_t i = 0; i < s_.warps; ++i) {
    WarpT w;
    w.sp = s_.sp_of(i, cfg_.sub_partitions);
    w.producer = i == s_.producer_warp;
    if (!s_.wgmma)
      w.sections = kts + 2;
    else if (w.producer)
      w.sections = kts;
    else if (i >= s_.first_compute_warp)
      w.sections = 2 * kts;
    w.group_done.assign(kts, 0);
    if (w.done()) ++c.warps_done;
    c.warps.push_back(std::move(w));
  }
  c.cp_count.assign(kts, 0);
  c.bar_count.assign(kts, 0);
  c.empty_count.assign(kts, 0);
  c.cp_last.assign(kts, 0);
  c.bar_last.assign(kts, 0);
  c.empty_last.assign(kts, 0);
  c.arrived.assign(kts, kUnknown);
  c.arrived_all.assign(kts, kUnknown);
  CtaRecord r;
  r.id = c.work.id;
  r.sm = sm;
  r.slot = slot;
  r.start = t;
  r.copy_issue.assign(kts, 0);
  r.copy_done.assign(kts, 0);
  c.record = run_.ctas.size();
  run_.ctas.push_back(std::move(r));
  slots_[static_cast<size_t>(sm)][static_cast<size_t>(slot)] = std::move(c);
  live_[static_cast<size_t>(sm)][static_cast<size_t>(slot)] = true;
  update_ready(sm, slots_[static_cast<size_t>(sm)][static_cast<size_t>(slot)]);
}

std::pair<Kind, std::int64_t> GpuSmTileStepper::Fast::section_of(const CtaT& c,
                                                                 const WarpT& w) const {
  const auto i = static_cast<std::int64_t>(w.sec);
  if (!s_.wgmma) {
    if (i == 0) return {Kind::kPrologue, 0};
    if (i <= c.kts) return {Kind::kMain, i - 1};
    return {Kind::kEpilogue, c.kts - 1};
  }
  if (w.producer) return {Kind::kTma, i};
  // Consumer: C0, C1, R1, C2, R2, ..., C(K-1), R(K-1), epilogue.
  if (i == 0) return {Kind::kWgmma, 0};
  if (i == 2 * c.kts - 1) return {Kind::kEpilogue, c.kts - 1};
  const std::int64_t kt = 1 + (i - 1) / 2;
  return (i - 1) % 2 == 0 ? std::make_pair(Kind::kWgmma, kt) : std::make_pair(Kind::kRelease, kt);
}

u64 GpuSmTileStepper::Fast::ready_time(const CtaT& c, const WarpT& w) const {
  const auto [kind, kt] = section_of(c, w);
  const auto k = static_cast<size_t>(kt);
  u64 r = kUnknown;
  switch (kind) {
    case Kind::kPrologue:
      r = c.start;
      break;
    case Kind::kMain:
      if (c.bar_count[k] == s_.compute_warps && c.arrived_all[k] != kUnknown)
        r = std::max(c.bar_last[k] + 1, c.arrived_all[k]);
      break;
    case Kind::kEpilogue:
      r = s_.wgmma ? w.group_done[k] : w.acc_all;
      break;
    case Kind::kTma:
      if (kt < s_.stages) {
        r = c.start;
      } else {
        const auto p = static_cast<size_t>(kt - s_.stages);
        if (c.empty_count[p] == s_.compute_warps) r = c.empty_last[p] + 1;
      }
      break;
    case Kind::kWgmma:
      r = c.arrived[k];
      break;
    case Kind::kRelease:
      r = w.group_done[k - 1];
      break;
  }
  return r == kUnknown ? r : std::max(r, c.start);
}

void GpuSmTileStepper::Fast::update_ready(int sm, CtaT& c, const WarpT* only) {
  for (auto& w : c.warps) {
    if (w.done() || w.ready != kUnknown || (only && &w != only)) continue;
    w.ready = ready_time(c, w);
    if (w.ready == kUnknown) continue;
    const SpT& sp = sps_[static_cast<size_t>(sm)][static_cast<size_t>(w.sp)];
    wake(sm, w.sp, std::max(w.ready, sp.sched_free));
  }
}

void GpuSmTileStepper::Fast::wake(int sm, std::int64_t p, u64 t) {
  SpT& sp = sps_[static_cast<size_t>(sm)][static_cast<size_t>(p)];
  if (sp.queued <= t) return;  // an earlier dispatch will look again (and wake again)
  sp.queued = t;
  push(t, 1, sm, static_cast<int>(p));
}

void GpuSmTileStepper::Fast::dispatch(int sm, std::int64_t p, u64 t) {
  SpT& sp = sps_[static_cast<size_t>(sm)][static_cast<size_t>(p)];
  if (sp.queued != t) return;  // stale
  sp.queued = kUnknown;
  auto& slots = slots_[static_cast<size_t>(sm)];
  CtaT* best = nullptr;
  size_t best_w = 0;
  u64 soon = kUnknown;  // the earliest later ready time, if nothing is ready now
  for (size_t s = 0; s < slots.size(); ++s) {
    if (!live_[static_cast<size_t>(sm)][s]) continue;
    CtaT& c = slots[s];
    for (const size_t i : sp_warps_[static_cast<size_t>(p)]) {
      const WarpT& w = c.warps[i];
      if (w.done() || w.ready == kUnknown) continue;
      if (w.ready > t) {
        soon = std::min(soon, w.ready);
        continue;
      }
      if (!best || std::make_tuple(c.age, i) < std::make_tuple(best->age, best_w)) {
        best = &c;
        best_w = i;
      }
    }
  }
  if (!best) {
    if (soon != kUnknown) wake(sm, p, soon);
    return;
  }
  WarpT& w = best->warps[best_w];
  const auto [kind, kt] = section_of(*best, w);
  const u64 end = execute(sm, sp, *best, w, t);
  sp.sched_free = end + 1;
  best->last_issue = std::max(best->last_issue, end);
  ++w.sec;
  w.ready = kUnknown;
  if (w.done() && ++best->warps_done == best->warps.size()) {
    run_.ctas[best->record].finish = best->last_issue + 1;
    push(best->last_issue + 1, 0, sm, best->slot);
  }
  wake(sm, p, sp.sched_free);
  update_ready(sm, *best, releases_others(*best, kind, kt) ? nullptr : &w);
}

bool GpuSmTileStepper::Fast::releases_others(const CtaT& c, Kind kind, std::int64_t kt) const {
  if (kind == Kind::kRelease) return c.empty_count[static_cast<size_t>(kt - 1)] == s_.compute_warps;
  if (kind == Kind::kPrologue || kind == Kind::kMain) {
    const auto k = static_cast<size_t>(kind == Kind::kPrologue ? 0 : kt + 1);
    return k < c.bar_count.size() && c.bar_count[k] == s_.compute_warps;
  }
  return false;
}

u64 GpuSmTileStepper::Fast::execute(int sm, SpT& sp, CtaT& c, WarpT& w, u64 t0) {
  const auto [kind, kt] = section_of(c, w);
  switch (kind) {
    case Kind::kPrologue:
      return prologue(sm, sp, c, t0);
    case Kind::kMain:
      return main_ktile(sm, sp, c, w, kt, t0);
    case Kind::kEpilogue:
      return epilogue(sm, sp, c, t0);
    case Kind::kTma:
      act(sm).instructions += static_cast<u64>(s_.tma_per_tile);
      act(sm).copies += static_cast<u64>(s_.tma_per_tile);
      push(t0 + static_cast<u64>(s_.tma_per_tile) - 1, 2, sm, c.slot, false, kt);
      return t0 + static_cast<u64>(s_.tma_per_tile) - 1;
    case Kind::kWgmma:
      return wgmma_group(sm, sp, w, c, kt, t0);
    case Kind::kRelease: {
      const auto k = static_cast<size_t>(kt - 1);
      ++c.empty_count[k];
      c.empty_last[k] = std::max(c.empty_last[k], t0);
      ++act(sm).instructions;
      return t0;
    }
  }
  return t0;
}

void GpuSmTileStepper::Fast::copy_issued(int sm, CtaT& c, std::int64_t kt, u64 t) {
  const auto k = static_cast<size_t>(kt);
  c.cp_last[k] = std::max(c.cp_last[k], t);
  if (++c.cp_count[k] == s_.compute_warps) push(c.cp_last[k], 2, sm, c.slot, false, kt);
}

// n cp.async issued on consecutive cycles from t: each takes the bank share for
// cp_smem_cycles (>= 1) from the later of its issue and the share's last reservation, so the
// run ends n x cp_smem_cycles after the first one's start (as the reference reserves them).
void GpuSmTileStepper::Fast::copy_banks(int sm, SpT& sp, u64 t, u64 n) {
  if (n == 0 || s_.cp_smem_cycles == 0) return;
  sp.smem_free = std::max(t, sp.smem_free) + n * static_cast<u64>(s_.cp_smem_cycles);
  act(sm).smem_busy += n * static_cast<u64>(s_.cp_smem_cycles);
}

u64 GpuSmTileStepper::Fast::prologue(int sm, SpT& sp, CtaT& c, u64 t0) {
  const auto n = static_cast<u64>(s_.cp_per_warp);
  const std::int64_t tiles = std::min(s_.stages - 1, c.kts);
  copy_banks(sm, sp, t0, static_cast<u64>(tiles) * n);
  for (std::int64_t kt = 0; kt < tiles; ++kt)
    copy_issued(sm, c, kt, t0 + static_cast<u64>(kt + 1) * n - 1);
  const u64 bar = t0 + static_cast<u64>(tiles) * n;
  ++c.bar_count[0];
  c.bar_last[0] = std::max(c.bar_last[0], bar);
  act(sm).instructions += static_cast<u64>(tiles) * n + 1;
  act(sm).copies += static_cast<u64>(tiles) * n;
  return bar;
}

u64 GpuSmTileStepper::Fast::main_ktile(int sm, SpT& sp, CtaT& c, WarpT& w, std::int64_t kt,
                                       u64 t0) {
  SmActivity& a = act(sm);
  u64 u = t0;
  const bool copies = kt + s_.stages - 1 < c.kts;
  const auto ncp = copies ? static_cast<u64>(s_.cp_per_warp) : 0;
  const auto nl = static_cast<u64>(s_.ldm_per_step);
  const auto cyc = static_cast<u64>(s_.ldm_cycles), lat = static_cast<u64>(cfg_.smem_latency);
  const auto m = static_cast<u64>(s_.mma_per_step), ii = static_cast<u64>(s_.mma_ii);
  const auto lmma = static_cast<u64>(cfg_.mma_latency);
  a.instructions += ncp;
  a.copies += ncp;
  // A k-step's fragment set (buffer `lb`): nl ldmatrix issued back to back, served back to
  // back by the sub-partition's bank share.
  auto load = [&](int lb) {
    const u64 start = std::max(u, sp.smem_free);
    sp.smem_free = start + nl * cyc;
    w.frag[lb] = sp.smem_free + lat;
    u += nl;
    a.instructions += nl;
    a.ldmatrix += nl;
    a.smem_busy += nl * cyc;
  };
  // A k-step's mma.sync (buffer `mb`) with `ncopy` cp.async between them: mma j issues at
  // first + j * mma_ii (mma_ii >= 2 leaves a slot after each), copy j right after mma j, the
  // copies left over back to back after the last mma.
  auto group = [&](int mb, u64 ncopy) {
    u64 first = std::max({u, sp.pipe_free, w.frag[mb]});
    if (w.t_prev0 != kUnknown) first = std::max(first, w.t_prev0 + lmma);
    w.t_prev0 = first;
    sp.pipe_free = first + m * ii;
    const u64 last_mma = first + (m - 1) * ii;
    u64 last = last_mma;
    if (ncopy > 0 && s_.cp_smem_cycles) {
      // Copy j issues right after mma j (j < m), the rest back to back after the last mma.
      const auto cyc_cp = static_cast<u64>(s_.cp_smem_cycles);
      for (u64 j = 0; j < ncopy; ++j) {
        const u64 tj = j < m ? first + j * ii + 1 : last_mma + 2 + (j - m);
        sp.smem_free = std::max(tj, sp.smem_free) + cyc_cp;
      }
      a.smem_busy += ncopy * cyc_cp;
    }
    if (ncopy > 0) {
      last = ncopy <= m ? first + (ncopy - 1) * ii + 1 : last_mma + 1 + (ncopy - m);
      last = std::max(last, last_mma);
      copy_issued(sm, c, kt + s_.stages - 1, ncopy <= m ? first + (ncopy - 1) * ii + 1 : last);
    }
    u = last + 1;
    a.instructions += m;
    a.mma += m;
    a.tensor_busy += m * ii;
  };
  const auto steps = s_.steps(c.work, kt);
  for (std::int64_t st = 0; st < steps; ++st) {
    const int buf = static_cast<int>(w.next_step++ % 2);
    if (w.pending < 0) {
      // The first k-tile: its copies and first fragment set issue back to back.
      if (copies) copy_issued(sm, c, kt + s_.stages - 1, u + ncp - 1);
      copy_banks(sm, sp, u, ncp);
      u += ncp;
      load(buf);
    } else {
      load(buf);
      group(w.pending, st == 0 ? ncp : 0);
    }
    w.pending = buf;
  }
  if (kt + 1 < c.kts) {
    const auto k = static_cast<size_t>(kt + 1);
    ++c.bar_count[k];
    c.bar_last[k] = std::max(c.bar_last[k], u);
    ++a.instructions;
    return u;
  }
  group(w.pending, 0);
  w.acc_all = w.t_prev0 + (m - 1) * ii + lmma;
  return u - 1;
}

u64 GpuSmTileStepper::Fast::wgmma_group(int sm, SpT& sp, WarpT& w, const CtaT& c, std::int64_t kt,
                                        u64 t0) {
  const auto n = static_cast<u64>(s_.steps(c.work, kt) * s_.mma_per_step);
  const auto ii = static_cast<u64>(s_.mma_ii);
  const u64 first = std::max(t0, sp.pipe_free);
  sp.pipe_free = first + n * ii;
  w.group_done[static_cast<size_t>(kt)] = sp.pipe_free + static_cast<u64>(cfg_.wgmma_latency);
  SmActivity& a = act(sm);
  a.instructions += n;
  a.mma += n;
  a.tensor_busy += n * ii;
  return t0 + n - 1;
}

u64 GpuSmTileStepper::Fast::epilogue(int sm, SpT& sp, CtaT& c, u64 t0) {
  u64 u = t0;
  // Instructions on one pipe issue every `cycles` once the pipe is free.
  auto pipe = [&u](u64& free, std::int64_t count, std::int64_t cycles) {
    if (count == 0) return;
    const u64 first = std::max(u, free);
    const u64 last = first + static_cast<u64>((count - 1) * cycles);
    free = last + static_cast<u64>(cycles);
    u = last + 1;
  };
  pipe(sp.fp_free, s_.ep_fp32, s_.fp32_cycles);
  pipe(sp.sfu_free, s_.ep_sfu, s_.sfu_cycles);
  const u64 last = u + static_cast<u64>(s_.ep_st) - 1;
  c.store_last = std::max(c.store_last, last);
  if (++c.stores == s_.compute_warps) push(c.store_last, 2, sm, c.slot, true, -1);
  SmActivity& a = act(sm);
  a.instructions += static_cast<u64>(s_.ep_fp32 + s_.ep_sfu + s_.ep_st);
  a.fp32 += static_cast<u64>(s_.ep_fp32);
  a.sfu += static_cast<u64>(s_.ep_sfu);
  return last;
}

void GpuSmTileStepper::Fast::memory(const Ev& e) {
  CtaT& c = slots_[static_cast<size_t>(e.sm)][static_cast<size_t>(e.slot)];
  GmemRequest q = gemm_request(s_, c.work, e.sm, e.slot, e.kt, e.store, e.t);
  q.token = next_token_++;
  const u64 done = port_.complete(q).value();
  if (done == kGmemPending) {
    pending_.emplace(q.token, Pending{e, c.record});
    return;
  }
  answered(e, c.record, done);
}

void GpuSmTileStepper::Fast::arrived(std::uint64_t token, std::uint64_t done) {
  const auto it = pending_.find(token);
  SYSTOLE_ASSERT(it != pending_.end(), "gpu_sm: an answer to no pending request");
  const Pending p = it->second;
  pending_.erase(it);
  answered(p.e, p.record, done);
}

void GpuSmTileStepper::Fast::answered(const Ev& e, size_t record, u64 done) {
  if (done <= e.t) throw SimError("gpu_sm: the memory port answered no later than the request");
  CtaRecord& r = run_.ctas[record];
  if (e.store) {
    r.store_issue = e.t;
    r.store_done = done;
    return;
  }
  // A copy's CTA waits for it, so it still holds its slot.
  CtaT& c = slots_[static_cast<size_t>(e.sm)][static_cast<size_t>(e.slot)];
  const auto k = static_cast<size_t>(e.kt);
  r.copy_issue[k] = e.t;
  r.copy_done[k] = done;
  c.arrived[k] = done;
  // arrived_all[j]: copies 0..j all landed. A late port may answer out of order.
  for (size_t j = k; j < c.arrived.size() && c.arrived[j] != kUnknown; ++j) {
    if (j > 0 && c.arrived_all[j - 1] == kUnknown) break;
    c.arrived_all[j] = std::max(j == 0 ? 0 : c.arrived_all[j - 1], c.arrived[j]);
  }
  update_ready(e.sm, c);
}

GpuSmTileStepper::GpuSmTileStepper(const GpuSmConfig& c, GmemPort& port, const GemmLaunch& l)
    : fast_(std::make_unique<Fast>(c, port, l)) {}
GpuSmTileStepper::~GpuSmTileStepper() = default;
std::uint64_t GpuSmTileStepper::next_time() const { return fast_->next_time(); }
std::size_t GpuSmTileStepper::pending() const { return fast_->pending(); }
void GpuSmTileStepper::step() { fast_->step(); }
void GpuSmTileStepper::arrived(std::uint64_t token, std::uint64_t cycle) {
  fast_->arrived(token, cycle);
}
GemmRun GpuSmTileStepper::finish() { return fast_->finish(); }

GemmRun GpuSmTileModel::run(const GemmLaunch& launch) {
  GpuSmTileStepper st(cfg_, port_, launch);
  while (st.next_time() != GpuSmTileStepper::kNone) st.step();
  if (st.pending() > 0)
    throw SimError(
        "gpu_sm: the memory port answered late (kGmemPending); drive a late port "
        "with GpuSmTileStepper");
  return st.finish();
}

}  // namespace systole::models
