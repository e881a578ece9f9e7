// FlashAttention forward timing (README "FlashAttention"): an event per warp section, in time
// order, each timed in closed form on its SM's representative sub-partition. The pipes are
// fluid first-come-first-served servers: a section's demand on a pipe starts when both the
// section and the pipe are free, so one warp's softmax (FP32/SFU) runs under another warp's
// tensor work, and two warps' tensor work queues.
#include "models/gpu_sm/gpu_attention.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "models/gpu_sm/ptx_shapes.h"
#include "sim/core/error.h"

namespace systole::models {

namespace {

using u64 = std::uint64_t;
constexpr u64 kUnknown = std::numeric_limits<u64>::max();
constexpr u64 kNone = GpuAttentionStepper::kNone;

/// Free times and busy cycles of one sub-partition's pipes.
struct Pipes {
  u64 sched =
      0;  ///< the warp scheduler: free from this cycle (README rule 2: one section at a time)
  u64 tensor = 0, smem = 0, fp32 = 0, sfu = 0, alu = 0;
  u64 tensor_busy = 0, smem_busy = 0, fp32_busy = 0, sfu_busy = 0, alu_busy = 0;
};

/// Events of one time: launches, then sections, then memory requests in (sm, slot) order.
struct Ev {
  u64 t = 0;
  int cls = 0;  // 0 launch, 1 section, 2 memory
  int sm = 0, slot = 0, agent = 0;
  int kind = 0;          // memory: 0 Q, 1 K, 2 V, 3 store
  std::int64_t idx = 0;  // memory: block (FA-2) or pipeline index (FA-3); FA-3 store: tile
  auto key() const { return std::tie(t, cls, sm, slot, kind, idx, agent); }
  bool operator>(const Ev& o) const { return key() > o.key(); }
};
enum MemKind { kQ = 0, kK = 1, kV = 2, kStore = 3 };

/// The closed forms every section uses, on one sub-partition.
class Sp {
 public:
  Sp(const GpuSmConfig& c, const FlashShape& s) : c_(c), s_(s) {}

  /// mma.sync GEMM from issue cursor u: per k-step `ldm` ldmatrix.x4 then `mma` mma.sync;
  /// fragments double-buffered. Returns {cursor after its last issue, accumulators ready}.
  std::pair<u64, u64> mma_gemm(Pipes& p, u64 u, std::int64_t steps, std::int64_t ldm,
                               std::int64_t mma, std::int64_t ii) const {
    const auto lt = static_cast<u64>(ldm * s_.ldm_cycles), lat = static_cast<u64>(c_.smem_latency);
    const auto n = static_cast<u64>(steps);
    const u64 smem_end = (p.smem = std::max(p.smem, u) + n * lt);
    const u64 frag0 = smem_end - (n - 1) * lt + lat;
    const auto step_mma = static_cast<u64>(mma * ii);
    const u64 tensor_end = (p.tensor = std::max(p.tensor, frag0) + n * step_mma);
    const u64 end = std::max(tensor_end, smem_end + lat + step_mma);
    p.smem_busy += n * lt;
    p.tensor_busy += n * step_mma;
    const u64 issued =
        std::max(end - static_cast<u64>(ii) + 1, u + n * static_cast<u64>(ldm + mma));
    return {issued, end - static_cast<u64>(ii) + static_cast<u64>(c_.mma_latency)};
  }

  /// `n` wgmma of `ii` tensor cycles issued from u: {cursor after issue, group complete}.
  std::pair<u64, u64> wgmma(Pipes& p, u64 u, std::int64_t n, std::int64_t ii) const {
    const auto busy = static_cast<u64>(n * ii);
    p.tensor = std::max(p.tensor, u) + busy;
    p.tensor_busy += busy;
    return {u + static_cast<u64>(n), p.tensor + static_cast<u64>(c_.wgmma_latency)};
  }

  /// `f` FP32-lane, `x` SFU, `a` ALU and `n` issue-only instructions from u, one issued per
  /// clock, the pipes in parallel: the cursor when all have issued and left their pipes.
  u64 vec(Pipes& p, u64 u, std::int64_t f, std::int64_t x, std::int64_t a = 0,
          std::int64_t n = 0) const {
    u64 end = u + static_cast<u64>(f + x + a + n);
    end = std::max(end, pipe(p.fp32, p.fp32_busy, u, f * s_.fp32_cycles));
    end = std::max(end, pipe(p.sfu, p.sfu_busy, u, x * s_.sfu_cycles));
    return std::max(end, pipe(p.alu, p.alu_busy, u, a * s_.alu_cycles));
  }

  /// `cycles` of one pipe from u, first come first served: when they end (u when none).
  static u64 pipe(u64& free, u64& busy, u64 u, std::int64_t cycles) {
    if (cycles <= 0) return u;
    free = std::max(free, u) + static_cast<u64>(cycles);
    busy += static_cast<u64>(cycles);
    return free;
  }

  /// `bytes` through the sub-partition's share of the banks from u: when the last lands.
  u64 smem(Pipes& p, u64 u, std::int64_t bytes) const {
    const std::int64_t share = c_.smem_bytes_per_clock() / c_.sub_partitions;
    const auto busy = static_cast<u64>((bytes + share - 1) / share);
    p.smem = std::max(p.smem, u) + busy;
    p.smem_busy += busy;
    return p.smem + static_cast<u64>(c_.smem_latency);
  }

  /// FA-3's softmax of one block from u (S ready at `s_ready`): row max, the quad all-reduce's
  /// two shuffle round trips, then exp2 / sum / scales on the FP32 lanes and SFU (P's
  /// conversion and O's rescale are sections of their own).
  u64 softmax(Pipes& p, u64 u, u64 s_ready, bool first, bool masked) const {
    u = std::max(u, s_ready);
    u = vec(p, u, s_.sm_max + (masked ? s_.sm_mask : 0), 0);
    u += 2 * static_cast<u64>(c_.smem_latency);  // ASSUMPTION: SHFL latency ~ shared memory's
    return vec(p, u, first ? s_.sm_first_rest : s_.sm_rest, first ? s_.sm_first_sfu : s_.sm_sfu);
  }

  /// FA-2's softmax of one block from u (S ready at `s_ready`), its instructions as the
  /// kernel's SASS issues them (FlashShape::fa2_*): the row max (FMNMX on the ALU pipe, the
  /// quad all-reduce's SHFL and two shuffle round trips), then the exponentials, row sum, O
  /// rescale and P's conversion on the FP32, SFU and ALU pipes, one instruction per clock.
  u64 softmax_fa2(Pipes& p, u64 u, u64 s_ready, bool first, bool masked) const {
    u = std::max(u, s_ready);
    u = vec(p, u, 0, 0, s_.fa2_max_alu + (masked ? s_.sm_mask : 0), s_.fa2_shfl);
    u += 2 * static_cast<u64>(c_.smem_latency);  // ASSUMPTION: SHFL latency ~ shared memory's
    return vec(p, u, first ? s_.fa2_first_fp32 : s_.fa2_fp32, first ? s_.sm_first_sfu : s_.sm_sfu,
               first ? s_.fa2_first_alu : s_.fa2_alu);
  }

 private:
  const GpuSmConfig& c_;
  const FlashShape& s_;
};

}  // namespace

/// State shared by both kernels' engines: the event queue, SMs, the port, the requests a late
/// port still owes, and the record.
class GpuAttentionStepper::Engine {
 public:
  Engine(const GpuSmConfig& c, GmemPort& port, const FlashLaunch& l)
      : cfg_(c), port_(port), l_(l), s_(flash_shape(c, l.tile)), sp_(c, s_) {
    if (l.sms < 1) throw ConfigError(Origin{"<flash launch>"}, "sms", "a launch needs an SM");
    run_.resident = flash_resident_ctas(c, l);
    pipes_.assign(static_cast<size_t>(l.sms), {});
  }
  virtual ~Engine() = default;

  /// Queues the first events (after construction: start() is the kernel's own).
  void begin() { start(); }
  u64 next_time() const { return q_.empty() ? kNone : q_.top().t; }
  size_t pending() const { return pending_.size(); }
  void step() {
    const Ev e = q_.top();
    q_.pop();
    handle(e);
  }
  void arrived(u64 token, u64 done) {
    const auto it = pending_.find(token);
    SYSTOLE_ASSERT(it != pending_.end(), "gpu_attention: an answer to no pending request");
    const Pending p = it->second;
    pending_.erase(it);
    answered(p.e, p.ctx, done);
  }
  FlashRun finish() {
    SYSTOLE_ASSERT(q_.empty() && pending_.empty(), "gpu_attention: finish() before the end");
    run_.cycles = 0;
    for (const auto& r : run_.ctas) run_.cycles = std::max({run_.cycles, r.finish, r.store_done});
    for (const auto& p : pipes_) {
      run_.tensor_busy.push_back(p.tensor_busy);
      run_.smem_busy.push_back(p.smem_busy);
      run_.fp32_busy.push_back(p.fp32_busy);
      run_.sfu_busy.push_back(p.sfu_busy);
    }
    return std::move(run_);
  }

 protected:
  /// What a request's answer needs to find its owner again: the CTA record (FA-2) or the tile
  /// of the slot (FA-3).
  struct Ctx {
    size_t record = 0, tile = 0;
  };
  virtual void start() = 0;
  virtual void handle(const Ev& e) = 0;
  /// The code after a request: its answer `done` (checked later than the request).
  virtual void landed(const Ev& e, const Ctx& ctx, u64 done) = 0;

  /// The next tile in launch order, checked; nullptr when none is left.
  const FlashCtaWork* take() {
    if (next_ >= l_.ctas.size()) return nullptr;
    const FlashCtaWork& w = l_.ctas[next_++];
    if (w.q_rows < 1 || w.q_rows > s_.block_m || w.n_blocks < 1 || w.masked < 0 ||
        w.masked > w.n_blocks || w.first_rows < 1 || w.first_rows > s_.block_n)
      throw ConfigError(
          Origin{"<flash launch>"}, "ctas",
          "tile " + std::to_string(w.id) + ": q_rows, n_blocks, masked or first_rows out of range");
    return &w;
  }
  size_t new_record(const FlashCtaWork& w, int sm, int slot, u64 t) {
    FlashCtaRecord r;
    r.id = w.id;
    r.sm = sm;
    r.slot = slot;
    r.start = t;
    run_.ctas.push_back(r);
    return run_.ctas.size() - 1;
  }
  void push_section(u64 t, int sm, int slot, int agent) { q_.push({t, 1, sm, slot, agent, 0, 0}); }
  void push_memory(u64 t, int sm, int slot, MemKind k, std::int64_t idx) {
    q_.push({t, 2, sm, slot, 0, k, idx});
  }
  /// Sends one request (K_j / V_j: visit `block` of tile `w`); landed() runs with its answer,
  /// now or, when the port answers kGmemPending, once it arrives.
  void request(const Ev& e, const FlashCtaWork& w, std::int64_t block, std::int64_t stage,
               const Ctx& ctx) {
    GmemRequest r;
    r.sm = e.sm;
    r.slot = e.slot;
    r.cta = w.id;
    r.store = e.kind == kStore;
    r.k_tile = e.kind == kQ ? 0 : e.kind == kStore ? -1 : 2 * block + e.kind;
    r.stage = stage;
    r.bytes = e.kind == kQ ? s_.q_bytes(w) : r.store ? s_.o_bytes(w) : s_.kv_bytes(w, block);
    r.issue = Cycles(e.t);
    r.token = next_token_++;
    ++run_.requests;
    run_.bytes += r.bytes.value();
    const u64 done = port_.complete(r).value();
    if (done == kGmemPending) {
      pending_.emplace(r.token, Pending{e, ctx});
      return;
    }
    answered(e, ctx, done);
  }
  Pipes& pipes(int sm) { return pipes_[static_cast<size_t>(sm)]; }

  const GpuSmConfig& cfg_;
  GmemPort& port_;
  const FlashLaunch& l_;
  FlashShape s_;
  Sp sp_;
  FlashRun run_;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q_;

 private:
  struct Pending {
    Ev e;
    Ctx ctx;
  };
  void answered(const Ev& e, const Ctx& ctx, u64 done) {
    if (done <= e.t) throw SimError("gpu_attention: the memory port answered no later than asked");
    landed(e, ctx, done);
  }

  std::vector<Pipes> pipes_;
  size_t next_ = 0;
  std::unordered_map<u64, Pending> pending_;  ///< requests a late port still owes
  u64 next_token_ = 1;
};

namespace {

using Engine = GpuAttentionStepper::Engine;
// ---------------------------------------------------------------------------------------------
// FA-2: CTAs of `warps` warps; sections per warp: prologue, (A_j, B_j) per block, epilogue.

struct Fa2Warp {
  std::int64_t sec = 0;
  u64 end = 0;  ///< last issue of its latest section
  u64 acc = 0;  ///< S (after A_j) or O (after B_j) accumulators ready
  bool queued = false;
};

struct Fa2Cta {
  const FlashCtaWork* w = nullptr;
  size_t record = 0;
  u64 start = 0;
  std::vector<Fa2Warp> warps;
  std::vector<u64> k, v;  ///< arrivals per block
  u64 q = kUnknown;
  std::vector<std::int64_t> bar_cnt;  ///< warps done with each section
  std::vector<u64> bar_last;
  std::vector<std::int64_t> req_cnt;  ///< warps that issued each request's copies: Q, K_j, V_j
  std::vector<u64> req_last;
  u64 last_issue = 0, store_last = 0;
  std::int64_t done_warps = 0;
  std::int64_t sections() const { return 2 * w->n_blocks + 2; }
};

class Fa2 : public Engine {
 public:
  using Engine::Engine;

 private:
  std::vector<std::vector<Fa2Cta>> slots_;
  std::vector<std::vector<bool>> live_;

  void start() override {
    const auto res = static_cast<size_t>(run_.resident);
    slots_.assign(static_cast<size_t>(l_.sms), std::vector<Fa2Cta>(res));
    live_.assign(static_cast<size_t>(l_.sms), std::vector<bool>(res, false));
    dispatch(0);
  }

  void handle(const Ev& e) override {
    if (e.cls == 0) freed(e.sm, e.slot, e.t);
    if (e.cls == 1) section(e.sm, e.slot, e.agent, e.t);
    if (e.cls == 2) memory(e);
  }

  /// Slot `slot` of `sm` frees at t; once every slot that frees at t is known, waiting CTAs go
  /// out (launch events of one time come first, in a row).
  void freed(int sm, int slot, u64 t) {
    live_[static_cast<size_t>(sm)][static_cast<size_t>(slot)] = false;
    if (!q_.empty() && q_.top().t == t && q_.top().cls == 0) return;
    dispatch(t);
  }

  /// The hardware CTA scheduler's placement: the next CTA goes to the SM with the most free
  /// resources (Gilman et al., SIGMETRICS PER 2020, "Demystifying the placement policies of the
  /// NVIDIA GPU thread block scheduler"; here free slots, the lowest SM first), its lowest free
  /// slot. On an empty GPU every SM gets one CTA before any gets a second; where slots free at
  /// the same cycle the CTAs spread over the SMs the same way.
  void dispatch(u64 t) {
    for (;;) {
      int best = -1, best_free = 0, best_slot = 0;
      for (int sm = 0; sm < l_.sms; ++sm) {
        const auto& live = live_[static_cast<size_t>(sm)];
        const auto free = static_cast<int>(std::count(live.begin(), live.end(), false));
        if (free <= best_free) continue;
        best = sm;
        best_free = free;
        best_slot = static_cast<int>(std::find(live.begin(), live.end(), false) - live.begin());
      }
      if (best < 0 || !launch(best, best_slot, t)) return;
    }
  }

  Fa2Cta& cta(int sm, int slot) {
    return slots_[static_cast<size_t>(sm)][static_cast<size_t>(slot)];
  }

  /// Starts the next CTA on a free slot; false when none is left.
  bool launch(int sm, int slot, u64 t) {
    const FlashCtaWork* w = take();
    if (!w) return false;
    Fa2Cta c;
    c.w = w;
    c.start = t;
    c.record = new_record(*w, sm, slot, t);
    const auto n = static_cast<size_t>(w->n_blocks);
    c.warps.assign(static_cast<size_t>(s_.sp_warps), {});
    c.k.assign(n, kUnknown);
    c.v.assign(n, kUnknown);
    c.bar_cnt.assign(2 * n + 2, 0);
    c.bar_last.assign(2 * n + 2, 0);
    c.req_cnt.assign(2 * n + 2, 0);
    c.req_last.assign(2 * n + 2, 0);
    cta(sm, slot) = std::move(c);
    live_[static_cast<size_t>(sm)][static_cast<size_t>(slot)] = true;
    schedule(sm, slot);
    return true;
  }

  /// When warp `i`'s next section may start, or kUnknown.
  u64 ready(const Fa2Cta& c, const Fa2Warp& w) const {
    const std::int64_t s = w.sec;
    if (s == 0) return c.start;
    const u64 own = w.end + 1;
    if (s == c.sections() - 1) return own;  // the epilogue: no barrier before it
    const auto j = static_cast<size_t>((s - 1) / 2);
    const u64 data = s % 2 == 1 ? c.k[j] : c.v[j];
    const auto prev = static_cast<size_t>(s - 1);
    if (data == kUnknown || c.bar_cnt[prev] < s_.sp_warps) return kUnknown;
    if (s == 1 && c.q == kUnknown) return kUnknown;
    return std::max({own, data, c.bar_last[prev] + 1, s == 1 ? c.q : 0});
  }

  void schedule(int sm, int slot) {
    Fa2Cta& c = cta(sm, slot);
    for (size_t i = 0; i < c.warps.size(); ++i) {
      Fa2Warp& w = c.warps[i];
      if (w.queued || w.sec >= c.sections()) continue;
      const u64 r = ready(c, w);
      if (r == kUnknown) continue;
      w.queued = true;
      push_section(r, sm, slot, static_cast<int>(i));
    }
  }

  /// Warp `i` issued its copies of request `r` (Q 0, K_j 2j+1, V_j 2j+2) by cycle t.
  void copied(int sm, int slot, std::int64_t r, u64 t) {
    Fa2Cta& c = cta(sm, slot);
    const auto k = static_cast<size_t>(r);
    c.req_last[k] = std::max(c.req_last[k], t);
    if (++c.req_cnt[k] < s_.sp_warps) return;
    const MemKind kind = r == 0 ? kQ : r % 2 == 1 ? kK : kV;
    push_memory(c.req_last[k], sm, slot, kind, r == 0 ? 0 : (r - 1) / 2);
  }

  void section(int sm, int slot, int i, u64 t) {
    Fa2Cta& c = cta(sm, slot);
    Fa2Warp& w = c.warps[static_cast<size_t>(i)];
    w.queued = false;
    Pipes& p = pipes(sm);
    const std::int64_t s = w.sec, n = c.w->n_blocks;
    u64 u = std::max(t, p.sched);  // issue cursor: the next instruction's cycle
    // A warp's cp.async writes take its share of the banks, as its ldmatrix reads do (README,
    // "cp.async fills share the data pipe").
    auto fill = [&](std::int64_t copies) { sp_.smem(p, u, copies * ptx::kCpAsyncWarpBytes); };
    if (s == 0) {
      fill(s_.cp_q + s_.cp_kv);
      copied(sm, slot, 0, u + static_cast<u64>(s_.cp_q) - 1);
      u += static_cast<u64>(s_.cp_q + s_.cp_kv);
      copied(sm, slot, 1, u - 1);
    } else if (s == c.sections() - 1) {
      u = epilogue(p, std::max(u, w.acc));
      c.store_last = std::max(c.store_last, u - 1);
      if (++c.done_warps == s_.sp_warps) push_memory(c.store_last, sm, slot, kStore, 0);
    } else {
      const std::int64_t j = (s - 1) / 2;
      if (s % 2 == 1) {  // A_j: V_j's copies, S = Q K_j^T
        fill(s_.cp_kv);
        u += static_cast<u64>(s_.cp_kv);
        copied(sm, slot, 2 * j + 2, u - 1);
        std::tie(u, w.acc) = sp_.mma_gemm(p, u, s_.qk_steps, s_.qk_ldm, s_.qk_mma, s_.qk_ii);
      } else {  // B_j: K_j+1's copies, softmax, O += P V_j
        if (j + 1 < n) {
          fill(s_.cp_kv);
          u += static_cast<u64>(s_.cp_kv);
          copied(sm, slot, 2 * j + 3, u - 1);
        }
        u = sp_.softmax_fa2(p, u, w.acc, j == 0, j < c.w->masked);
        std::tie(u, w.acc) = sp_.mma_gemm(p, u, s_.pv_steps, s_.pv_ldm, s_.pv_mma, s_.pv_ii);
      }
    }
    p.sched = u;
    finish_section(sm, slot, w, u - 1);
  }

  /// Normalise O, write it to shared memory, __syncthreads, read it back and store it.
  u64 epilogue(Pipes& p, u64 u) {
    u = sp_.vec(p, u, s_.ep_fp32, s_.ep_sfu);
    u = std::max(u + static_cast<u64>(s_.ep_st), sp_.smem(p, u, s_.ep_smem_bytes));
    return std::max(u + static_cast<u64>(2 * s_.ep_st), sp_.smem(p, u, s_.ep_smem_bytes));
  }

  void finish_section(int sm, int slot, Fa2Warp& w, u64 last) {
    Fa2Cta& c = cta(sm, slot);
    const auto s = static_cast<size_t>(w.sec);
    w.end = last;
    c.last_issue = std::max(c.last_issue, last);
    ++c.bar_cnt[s];
    c.bar_last[s] = std::max(c.bar_last[s], last);
    ++w.sec;
    if (s + 1 == static_cast<size_t>(c.sections()) && c.bar_cnt[s] == s_.sp_warps) {
      run_.ctas[c.record].finish = c.last_issue + 1;
      q_.push({c.last_issue + 1, 0, sm, slot, 0});  // the slot frees: launch the next CTA
    }
    schedule(sm, slot);
  }

  void memory(const Ev& e) {
    const Fa2Cta& c = cta(e.sm, e.slot);
    request(e, *c.w, e.idx, 0, {c.record, 0});
  }

  void landed(const Ev& e, const Ctx& ctx, u64 done) override {
    if (e.kind == kStore) {
      run_.ctas[ctx.record].store_done = done;
      return;
    }
    // A CTA waits for its copies, so it still holds its slot.
    Fa2Cta& c = cta(e.sm, e.slot);
    SYSTOLE_ASSERT(c.record == ctx.record, "gpu_attention: a copy outlived its CTA");
    const auto j = static_cast<size_t>(e.idx);
    (e.kind == kQ ? c.q : e.kind == kK ? c.k[j] : c.v[j]) = done;
    if (live_[static_cast<size_t>(e.sm)][static_cast<size_t>(e.slot)]) schedule(e.sm, e.slot);
  }
};

// ---------------------------------------------------------------------------------------------
// FA-3: persistent CTAs (slots); a producer warp (agent 0) and one warp of each consumer
// warpgroup (agents 1..G) on the representative sub-partition.

struct Fa3Tile {
  const FlashCtaWork* w = nullptr;
  size_t record = 0;
  std::int64_t k0 = 0;  ///< pipeline index of its first K (and V) block
  u64 q = kUnknown;
  std::int64_t q_released = 0;
  u64 q_release_last = 0;
  std::int64_t stores = 0;
  u64 store_last = 0;
};

struct Fa3Agent {
  size_t tile = 0;
  std::int64_t step = 0;  ///< producer: load within the tile; consumer: block step
  u64 end = 0;
  bool queued = false, started = false;
  int phase = 0;     ///< consumer: sub-section of the block step (see consume)
  u64 ready_at = 0;  ///< consumer phases 1 and 2: when the wait is over
  u64 s_ready = 0, o_ready = 0;
};

struct Fa3Slot {
  std::vector<Fa3Tile> tiles;
  std::vector<Fa3Agent> agents;
  std::vector<u64> k, v;  ///< arrivals by pipeline index
  std::vector<std::int64_t> k_rel, v_rel;
  std::vector<u64> k_rel_last, v_rel_last;
  std::vector<std::vector<u64>> turns;  ///< per consumer: issue end of each ping-pong turn
  std::int64_t next_k = 0;
  bool exhausted = false;
};

class Fa3 : public Engine {
 public:
  using Engine::Engine;

 private:
  std::vector<std::vector<Fa3Slot>> slots_;
  std::int64_t groups() const { return s_.sp_warps; }

  void start() override {
    const auto res = static_cast<size_t>(run_.resident);
    slots_.assign(static_cast<size_t>(l_.sms), std::vector<Fa3Slot>(res));
    for (int sm = 0; sm < l_.sms; ++sm)
      for (size_t slot = 0; slot < res; ++slot) {
        Fa3Slot& f = slot_of(sm, static_cast<int>(slot));
        f.agents.assign(static_cast<size_t>(groups() + 1), {});
        f.turns.assign(static_cast<size_t>(groups()), {});
        if (!fetch(f, sm, static_cast<int>(slot), 0)) continue;
        schedule(sm, static_cast<int>(slot));
      }
  }

  Fa3Slot& slot_of(int sm, int slot) {
    return slots_[static_cast<size_t>(sm)][static_cast<size_t>(slot)];
  }

  /// The producer takes the next tile (the persistent tile scheduler).
  bool fetch(Fa3Slot& f, int sm, int slot, u64 t) {
    const FlashCtaWork* w = take();
    if (!w) {
      f.exhausted = true;
      return false;
    }
    Fa3Tile tile;
    tile.w = w;
    tile.record = new_record(*w, sm, slot, t);
    tile.k0 = f.next_k;
    f.next_k += w->n_blocks;
    const auto n = static_cast<size_t>(f.next_k);
    f.k.resize(n, kUnknown);
    f.v.resize(n, kUnknown);
    f.k_rel.resize(n, 0);
    f.v_rel.resize(n, 0);
    f.k_rel_last.resize(n, 0);
    f.v_rel_last.resize(n, 0);
    f.tiles.push_back(tile);
    return true;
  }

  void handle(const Ev& e) override {
    if (e.cls == 1) section(e.sm, e.slot, e.agent, e.t);
    if (e.cls == 2) memory(e);
  }

  /// Producer load `step` of a tile of n blocks: Q, K_0, (K_i, V_i-1) for i = 1..n-1, V_n-1
  /// (FA-3's load order with intra-warpgroup overlap). {kind, block}.
  static std::pair<MemKind, std::int64_t> load_of(std::int64_t step, std::int64_t n) {
    if (step == 0) return {kQ, 0};
    if (step == 2 * n) return {kV, n - 1};
    if (step == 1) return {kK, 0};
    const std::int64_t i = 1 + (step - 2) / 2;
    return step % 2 == 0 ? std::make_pair(kK, i) : std::make_pair(kV, i - 1);
  }

  u64 producer_ready(const Fa3Slot& f, const Fa3Agent& a) const {
    if (a.tile >= f.tiles.size()) return kUnknown;
    const Fa3Tile& t = f.tiles[a.tile];
    const u64 own = a.started ? a.end + 1 : 0;
    const auto [kind, block] = load_of(a.step, t.w->n_blocks);
    if (kind == kQ) {
      if (a.tile == 0) return own;
      const Fa3Tile& prev = f.tiles[a.tile - 1];
      if (prev.q_released < groups()) return kUnknown;
      return std::max(own, prev.q_release_last + 1);
    }
    const std::int64_t idx = t.k0 + block;
    if (idx < l_.tile.stages) return own;
    const auto old = static_cast<size_t>(idx - l_.tile.stages);
    const auto& rel = kind == kK ? f.k_rel : f.v_rel;
    const auto& last = kind == kK ? f.k_rel_last : f.v_rel_last;
    if (rel[old] < groups()) return kUnknown;
    return std::max(own, last[old] + 1);
  }

  /// Consumer g's ping-pong turn `k` may issue (the previous warpgroup issued its turn).
  u64 turn_ready(const Fa3Slot& f, std::int64_t g, size_t k) const {
    if (!s_.pingpong) return 0;
    const auto G = static_cast<size_t>(groups());
    const auto prev = g == 0 ? G - 1 : static_cast<size_t>(g - 1);
    if (g == 0 && k == 0) return 0;
    const size_t need = g == 0 ? k - 1 : k;
    return f.turns[prev].size() > need ? f.turns[prev][need] + 1 : kUnknown;
  }

  u64 consumer_ready(const Fa3Slot& f, std::int64_t g, const Fa3Agent& a) const {
    if (a.tile >= f.tiles.size()) return kUnknown;
    if (a.phase > 0) return std::max(a.ready_at, a.end + 1);
    const Fa3Tile& t = f.tiles[a.tile];
    const std::int64_t n = t.w->n_blocks, i = a.step;
    u64 r = a.started ? a.end + 1 : 0;
    auto need = [&r](u64 x) {
      if (x == kUnknown || r == kUnknown)
        r = kUnknown;
      else
        r = std::max(r, x);
    };
    if (i == 0) need(t.q);
    if (i < n) need(f.k[static_cast<size_t>(t.k0 + i)]);
    if (i > 0) need(f.v[static_cast<size_t>(t.k0 + i - 1)]);
    if (i > 0 && i < n) need(turn_ready(f, g, f.turns[static_cast<size_t>(g)].size()));
    return r;
  }

  void schedule(int sm, int slot) {
    Fa3Slot& f = slot_of(sm, slot);
    for (size_t a = 0; a < f.agents.size(); ++a) {
      Fa3Agent& ag = f.agents[a];
      if (ag.queued) continue;
      const u64 r =
          a == 0 ? producer_ready(f, ag) : consumer_ready(f, static_cast<std::int64_t>(a) - 1, ag);
      if (r == kUnknown) continue;
      ag.queued = true;
      push_section(r, sm, slot, static_cast<int>(a));
    }
  }

  void section(int sm, int slot, int agent, u64 t) {
    Fa3Slot& f = slot_of(sm, slot);
    Fa3Agent& a = f.agents[static_cast<size_t>(agent)];
    a.queued = false;
    a.started = true;
    if (agent == 0)
      produce(sm, slot, f, a, t);
    else
      consume(sm, slot, f, agent - 1, a, t);
    schedule(sm, slot);
  }

  void produce(int sm, int slot, Fa3Slot& f, Fa3Agent& a, u64 t) {
    const Fa3Tile& tile = f.tiles[a.tile];
    const auto [kind, block] = load_of(a.step, tile.w->n_blocks);
    Pipes& p = pipes(sm);
    const u64 u = std::max(t, p.sched);
    p.sched = u + 1;
    push_memory(u, sm, slot, kind,
                kind == kQ ? static_cast<std::int64_t>(a.tile) : tile.k0 + block);
    a.end = u;  // one TMA instruction
    if (++a.step <= 2 * tile.w->n_blocks) return;
    a.step = 0;
    ++a.tile;
    if (a.tile >= f.tiles.size() && !f.exhausted) fetch(f, sm, slot, u + 1);
  }

  void release(std::vector<std::int64_t>& cnt, std::vector<u64>& last, std::int64_t idx, u64 t) {
    ++cnt[static_cast<size_t>(idx)];
    last[static_cast<size_t>(idx)] = std::max(last[static_cast<size_t>(idx)], t);
  }

  /// One consumer sub-section of block step i (sections are cut at the waits): phase 0 issues
  /// the step's wgmmas, phase 1 runs the softmax once S is complete, phase 2 (once P V is
  /// complete) converts P and rescales O, or for the last step writes the epilogue.
  void consume(int sm, int slot, Fa3Slot& f, std::int64_t g, Fa3Agent& a, u64 t) {
    Pipes& p = pipes(sm);
    Fa3Tile& tile = f.tiles[a.tile];
    const std::int64_t n = tile.w->n_blocks, i = a.step, kidx = tile.k0 + i;
    u64 u = std::max(t, p.sched);
    bool step_done = false;
    if (a.phase == 0) {
      if (i == n) {  // Q is free for the next tile's load once the last S was computed
        ++tile.q_released;
        tile.q_release_last = std::max(tile.q_release_last, u);
      }
      if (i < n) std::tie(u, a.s_ready) = sp_.wgmma(p, u, s_.qk_steps, s_.qk_ii);
      if (i > 0) std::tie(u, a.o_ready) = sp_.wgmma(p, u, s_.pv_steps, s_.pv_ii);
      if (i > 0 && i < n) f.turns[static_cast<size_t>(g)].push_back(u - 1);
      if (i < n) release(f.k_rel, f.k_rel_last, kidx, a.s_ready);  // wgmma.wait_group, K free
      a.phase = i < n ? 1 : 2;
      a.ready_at = i < n ? std::max(u, a.s_ready) : std::max(u, a.o_ready);
    } else if (a.phase == 1) {  // softmax of S_i under the P V wgmmas still running
      u = sp_.softmax(p, u, a.s_ready, i == 0, i < tile.w->masked);
      if (i == 0) u = sp_.vec(p, u, s_.p_convert, 0);
      step_done = i == 0;
      a.phase = 2;
      a.ready_at = std::max(u, a.o_ready);
    } else {
      release(f.v_rel, f.v_rel_last, kidx - 1, u);  // wgmma.wait_group 0: V_i-1 free
      if (i < n) {
        u = sp_.vec(p, u, s_.p_convert + s_.o_rescale, 0);
      } else {
        u = sp_.vec(p, u, s_.o_rescale + s_.ep_fp32, s_.ep_sfu);
        u = std::max(u + static_cast<u64>(s_.ep_st), sp_.smem(p, u, s_.ep_smem_bytes));
        tile.store_last = std::max(tile.store_last, u);
        if (++tile.stores == groups()) {  // fence + named barrier; one thread issues the TMA store
          run_.ctas[tile.record].finish = tile.store_last + 1;
          push_memory(tile.store_last, sm, slot, kStore, static_cast<std::int64_t>(a.tile));
        }
      }
      step_done = true;
    }
    p.sched = u;
    a.end = u - 1;
    if (!step_done) return;
    a.phase = 0;
    if (++a.step > n) {
      a.step = 0;
      ++a.tile;
    }
  }

  void memory(const Ev& e) {
    Fa3Slot& f = slot_of(e.sm, e.slot);
    if (e.kind == kQ || e.kind == kStore) {
      const auto ti = static_cast<size_t>(e.idx);
      request(e, *f.tiles[ti].w, 0, 0, {f.tiles[ti].record, ti});
      return;
    }
    // The tile owning pipeline index idx: the latest whose k0 <= idx.
    size_t ti = f.tiles.size() - 1;
    while (f.tiles[ti].k0 > e.idx) --ti;
    request(e, *f.tiles[ti].w, e.idx - f.tiles[ti].k0, e.idx % l_.tile.stages,
            {f.tiles[ti].record, ti});
  }

  void landed(const Ev& e, const Ctx& ctx, u64 done) override {
    Fa3Slot& f = slot_of(e.sm, e.slot);
    if (e.kind == kQ)
      f.tiles[ctx.tile].q = done;
    else if (e.kind == kStore)
      run_.ctas[ctx.record].store_done = done;
    else
      (e.kind == kK ? f.k : f.v)[static_cast<size_t>(e.idx)] = done;
    schedule(e.sm, e.slot);
  }
};

}  // namespace

GpuAttentionStepper::GpuAttentionStepper(const GpuSmConfig& c, GmemPort& port,
                                         const FlashLaunch& launch) {
  if (launch.tile.version == FlashVersion::kFa3)
    engine_ = std::make_unique<Fa3>(c, port, launch);
  else
    engine_ = std::make_unique<Fa2>(c, port, launch);
  engine_->begin();
}
GpuAttentionStepper::~GpuAttentionStepper() = default;
std::uint64_t GpuAttentionStepper::next_time() const { return engine_->next_time(); }
std::size_t GpuAttentionStepper::pending() const { return engine_->pending(); }
void GpuAttentionStepper::step() { engine_->step(); }
void GpuAttentionStepper::arrived(std::uint64_t token, std::uint64_t cycle) {
  engine_->arrived(token, cycle);
}
FlashRun GpuAttentionStepper::finish() { return engine_->finish(); }

FlashRun GpuAttentionModel::run(const FlashLaunch& launch) {
  GpuAttentionStepper st(cfg_, port_, launch);
  while (st.next_time() != GpuAttentionStepper::kNone) st.step();
  if (st.pending() > 0)
    throw SimError(
        "gpu_attention: the memory port answered late (kGmemPending); drive a late port with "
        "GpuAttentionStepper");
  return st.finish();
}

}  // namespace systole::models
