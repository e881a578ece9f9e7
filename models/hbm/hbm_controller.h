#pragma once
// One HBM channel controller and its device: read and write queues per pseudo-channel (kept as
// per-bank lists in arrival order), a pluggable command scheduler (FR-FCFS / FCFS) over both
// pseudo-channels (they share the command buses), open- or closed-page policy, write drain per
// pseudo-channel between two watermarks (Ramulator 2's generic controller), refresh. Event
// driven: each pseudo-channel decides when something can happen to it; decide_due(t) issues at
// most one row and one column command per pseudo-channel due at cycle t (the shared buses allow
// one of each per channel) and computes its next decision cycle, so idle cycles and banks cost
// nothing.

#include <cstdint>
#include <memory>
#include <vector>

#include "models/hbm/hbm_device.h"
#include "models/hbm/hbm_refresh.h"
#include "models/hbm/hbm_ring.h"
#include "models/hbm/hbm_scheduler.h"
#include "models/hbm/hbm_stats.h"

namespace systole::models {

/// The bursts issued for the requests of one tag, as a controller counts them for its client.
struct HbmBurstTally {
  std::uint64_t issued = 0;     ///< bursts issued
  Cycle last_end = 0;           ///< the latest cycle their data crossed the bus
  std::uint64_t notify_at = 0;  ///< the client's on_tally() runs when `issued` reaches this
};

/// Receives what a controller does to the requests it was given (identified by their tag).
class HbmControllerClient {
 public:
  virtual ~HbmControllerClient() = default;
  /// A column command of request `tag` issued; its data has crossed the bus at `data_end`:
  /// counted in the tag's tally inline (once per burst), the client told at its notify_at.
  void on_burst(std::uint32_t tag, Cycle data_end) {
    HbmBurstTally& b = tallies_[tag];
    ++b.issued;
    b.last_end = cmax(b.last_end, data_end);
    if (b.issued >= b.notify_at) on_tally(tag);
  }
  /// The last data of request `tag` crossed the bus at `t` (the request is complete).
  virtual void on_request_done(std::uint32_t tag, Cycle t) = 0;
  /// A queue slot of pseudo-channel `pc` of channel `channel` was freed at `t`.
  virtual void on_space(std::uint32_t channel, std::uint32_t pc, Cycle t) = 0;

 protected:
  /// The tally of `tag` reached its notify_at.
  virtual void on_tally(std::uint32_t tag) = 0;
  std::vector<HbmBurstTally> tallies_;  // by tag, sized by the client
};

/// A request entering a controller: `bursts` column accesses from column `col` of one row.
struct HbmRequestIn {
  std::uint32_t pc = 0, bg = 0, bank = 0, row = 0, col = 0, bursts = 1, tag = 0;
  bool write = false;
};

/// A command as issued, for tests and traces.
struct HbmIssued {
  Cycle at;
  HbmCommand cmd;
  std::uint32_t target;  ///< bank, or pseudo-channel for kPreAll / kRefresh
};

class HbmController {
 public:
  HbmController(const HbmConfig& cfg, std::uint32_t index, std::uint32_t total_pcs,
                HbmControllerClient& client);

  bool full(std::uint32_t pc, bool write) const { return pc_[pc].count[write] >= capacity_[write]; }
  void enqueue(const HbmRequestIn& r, Cycle now);
  /// Completes the requests whose data ended by `t` (oldest first, reads before writes).
  void complete(Cycle t);
  /// One pass over the pseudo-channels: decides those due by `t`.
  void decide_due(Cycle t) {
    // A decision changes no other pseudo-channel's decision cycle (what it enqueues on freed
    // space goes to its own), so the minimum is taken in the same pass.
    Cycle d = kNever;
    const Cycle* at = decide_at_.data();  // (never resized)
    const std::uint32_t n = dev_.pcs();
    for (std::uint32_t pc = 0; pc < n; ++pc) {
      if (at[pc] <= t) decide(pc, t);
      d = at[pc] < d ? at[pc] : d;
    }
    next_decide_ = d;
  }
  /// Every decision due before `limit`, in cycle order, when no request arrives before it (the
  /// cycles decide_due would be called at, one after the other).
  void decide_before(Cycle limit) {
    for (Cycle t = next_decide_; t < limit; t = next_decide_) decide_due(t);
  }
  /// The next cycle a decision is due (kNever: none) and the next completion.
  Cycle next_decide() const { return next_decide_; }
  Cycle next_done() const {
    return std::min(done_[0].empty() ? kNever : done_[0].front().at,
                    done_[1].empty() ? kNever : done_[1].front().at);
  }
  const HbmDevice& device() const { return dev_; }
  /// Asks the CPU to bring this controller's scheduling state into cache (a hint, no effect
  /// on what happens).
  void prefetch() const {
    prefetch_lines(pc_);
    prefetch_lines(decide_at_);
    for (int k = 0; k < 2; ++k) {
      prefetch_lines(slots_[k]);
      prefetch_lines(cache_[k]);
      prefetch_lines(head_[k]);
    }
    dev_.prefetch();
  }
  /// Counters up to `now` (queue areas and bank busy time are closed at `now`).
  HbmChannelStats stats(Cycle now) const;
  std::uint32_t queued(std::uint32_t pc, bool write) const { return pc_[pc].count[write]; }
  /// Records every issued command into `log` (nullptr: off).
  void set_log(std::vector<HbmIssued>* log) { log_ = log; }
  /// With false, every decision takes the full scan over the candidates (the reference the
  /// fast paths are tested against: the same commands at the same cycles).
  void set_fast(bool fast) {
    fast_ = fast;
    lean_ = fast_ && hits_first_;
  }
  /// Decisions the fast paths shortened, for the equality tests: the column scan stopped at
  /// the second ready column (early_stops), the row candidates were not scanned (row_skips).
  std::uint64_t fast_decisions() const { return early_stops_ + row_skips_; }
  std::uint64_t early_stops() const { return early_stops_; }
  std::uint64_t row_skips() const { return row_skips_; }
  /// Decisions taken by the lean path, per kind served (reads, writes), and by the full one.
  std::uint64_t lean_decisions(int kind) const { return lean_decisions_[kind]; }
  std::uint64_t full_decisions() const { return full_decisions_; }
  /// The candidate slots' invariants (for tests): each PC's column slots in strict age order
  /// before its row slots, where_ pointing at them, and every valid candidate's age in its
  /// slot.
  bool slots_consistent() const;

 private:
  static constexpr std::uint32_t kNone = ~0u;
  static constexpr std::uint16_t kNoReq = 0xffff;  // pool indices fit 16 bits (queues <= 4096)
  /// A slot's group term is an activate's or a precharge's (GroupSlot 0, 1), not a column's.
  static bool is_row(std::uint16_t group) { return (group & 3) < 2; }
  struct Request {
    std::uint32_t bank, row, col, bursts, seq, tag, next;
    bool write;
  };
  /// A bank's candidate command for one kind of request: valid until a command issues to the
  /// bank or its requests change, when the entry is invalidated. What the scan reads of it
  /// (its own timing term, age, group term) is kept in the bank's Slot.
  struct Cached {
    std::uint16_t req = kNoReq;  // its index in the pool; kNoReq: must be recomputed
    HbmCommand cmd = HbmCommand::kAct;
  };

  /// An active bank's candidate as the decision's scan reads it (16 bytes, a PC's contiguous).
  struct Slot {
    Cycle term;           // the bank's own earliest cycle for its candidate
    std::uint32_t seq;    // age of the request the candidate serves
    std::uint16_t group;  // its bank-group term: group_terms()[group]; & 3: its GroupSlot
    std::uint16_t bank;
  };
  struct Done {
    Cycle at;
    std::uint32_t tag;
  };
  /// Per pseudo-channel scheduling state.
  struct PcState {
    std::uint32_t count[2] = {0, 0};   // queued requests: reads, writes
    int mode = 0;                      // the kind served: 0 reads, 1 writes (draining)
    bool refreshing = false;           // a refresh is due: close the banks, then refresh
    std::uint64_t stale[2] = {0, 0};   // banks (bit: bank within the PC) whose candidate of
                                       // that kind must be recomputed
    std::uint32_t active[2] = {0, 0};  // banks with requests of each kind (their slots)
    std::uint32_t rows[2] = {0, 0};    // how many of those slots hold a row command (the last)
    // Fast path: for each kind, the cycles the waiting row candidates (activates, precharges)
    // were ready at when last scanned, and their minimum (0: scan them). A candidate's terms
    // only grow while it stands, so none is ready before these; recompute() resets them when a
    // bank's candidate becomes a row command.
    Cycle row_wait[2][2] = {{0, 0}, {0, 0}};
    Cycle row_from[2] = {0, 0};
  };

  /// The decision of `pc` due by `t` (hbm_decide.cpp): the common case (FR-FCFS, fast paths
  /// on, no refresh due) on a lean path, the rest on decide_full.
  void decide(std::uint32_t pc, Cycle t);
  [[gnu::noinline]] void decide_full(std::uint32_t pc, Cycle t);
  template <int kind>
  void decide_lean(std::uint32_t pc, Cycle t, Cycle due);
  /// FR-FCFS's pass over a PC's row candidates (its slots [ncols, n)): the oldest ready one
  /// (kNone: none), whether ready ones lost the row bus (a precharge among them), and the
  /// earliest cycle of the waiting ones per kind (activate, precharge). Both paths scan so.
  struct RowPick {
    std::uint32_t i = kNone;
    bool lost = false, pre_lost = false;
    Cycle waiting[2] = {kNever, kNever};
  };
  RowPick pick_row(std::uint32_t pc, const Slot* slot, std::uint32_t ncols, std::uint32_t n,
                   Cycle t) const;
  /// Both paths' end: decide_at_[pc] from `next` and the issued banks, the space freed signalled.
  void finish_decision(std::uint32_t pc, int kind, Cycle t, Cycle next, std::uint32_t col_bank,
                       bool col_lost, std::uint32_t row_bank);
  /// Recomputes the stale candidates of `kind` of `pc` (before a decision reads the slots).
  void refresh_stale(std::uint32_t pc, int kind);
  /// A decision of `pc` is due by `t`.
  void bring_forward(std::uint32_t pc, Cycle t) {
    decide_at_[pc] = std::min(decide_at_[pc], t);
    next_decide_ = std::min(next_decide_, t);
  }
  void update_next_decide() {
    Cycle d = kNever;
    for (const Cycle a : decide_at_) d = std::min(d, a);
    next_decide_ = d;
  }
  void update_mode(std::uint32_t pc) {
    const auto& n = pc_[pc].count;
    int& m = pc_[pc].mode;
    if (m == 0) {
      if (n[1] >= drain_high_ || (n[0] == 0 && n[1] > 0)) m = 1;
    } else if (n[1] == 0 || (n[1] <= drain_low_ && n[0] > 0)) {
      m = 0;
    }
  }
  const Cached& candidate(int kind, std::uint32_t b) {
    const Cached& c = cache_[kind][b];
    return c.req != kNoReq ? c : recompute(kind, b);
  }
  const Cached& recompute(int kind, std::uint32_t b);
  Cycle ready(const Cached& c, std::uint32_t b) const {
    switch (c.cmd) {
      case HbmCommand::kAct:
        return dev_.act_ready(b);
      case HbmCommand::kPre:
        return dev_.pre_ready(b);
      default:
        return dev_.column_ready(b, is_write(c.cmd));
    }
  }
  /// Keeps the column slots of `kind` of bank `b`'s pseudo-channel in age order after the
  /// slot at `pos` (a column) got a new age: moves it to its place, shifting the others.
  void place_column(int kind, std::uint32_t pos);
  /// Moves the column slot at `pos` to the last column position, shifting the younger ones
  /// down (their order kept); returns that position.
  std::uint32_t column_to_end(int kind, std::uint32_t pc, std::uint32_t pos);
  template <int kind>
  [[gnu::always_inline]] void issue_column(std::uint32_t bank, Cycle t);
  /// Its last burst issued (data over the bus at `end`): request `idx` leaves bank `b`.
  [[gnu::noinline]] void finish_request(int kind, std::uint32_t b, std::uint32_t idx, Cycle end,
                                        Cycle t);
  void issue_row(int kind, std::uint32_t bank, Cycle t);
  void issue_refresh(std::uint32_t pc, Cycle t);
  bool other_hit(std::uint32_t b, std::uint32_t row, std::uint32_t except) const;
  void unlink(int kind, std::uint32_t b, std::uint32_t idx);
  /// Slot `from` of kind `kind` to position `to` (nothing when they are the same), keeping
  /// where_ up to date; swap_slots exchanges two.
  void move_slot(int kind, std::uint32_t to, std::uint32_t from);
  void swap_slots(int kind, std::uint32_t a, std::uint32_t b);
  Cached& entry(int kind, std::uint32_t b) { return cache_[kind][b]; }
  /// Marks both candidates of bank `b` stale.
  void invalidate(std::uint32_t b) {
    invalidate(0, b);
    invalidate(1, b);
  }
  /// Marks bank `b`'s candidate of `kind` stale.
  void invalidate(int kind, std::uint32_t b) {
    cache_[kind][b].req = kNoReq;
    pc_[dev_.pc_of(b)].stale[kind] |= std::uint64_t{1} << (b & (dev_.banks_per_pc() - 1));
  }
  void note(HbmCommand c, std::uint32_t target, Cycle t) {
    if (log_) log_->push_back({t, c, target});
  }
  void count_change(std::uint32_t pc, int kind, int delta, Cycle t) {
    area_[kind] += static_cast<double>(total_[kind]) * static_cast<double>(t - area_at_[kind]);
    area_at_[kind] = t;
    total_[kind] = static_cast<std::uint32_t>(static_cast<int>(total_[kind]) + delta);
    pc_[pc].count[kind] = static_cast<std::uint32_t>(static_cast<int>(pc_[pc].count[kind]) + delta);
  }

  HbmDevice dev_;
  HbmRefresh refresh_;
  SchedulerKind sched_;
  HbmControllerClient& client_;
  std::uint32_t index_;
  PagePolicy page_;
  std::uint32_t capacity_[2];
  std::uint32_t drain_high_, drain_low_;
  bool hits_first_;
  bool fast_ = true;
  bool lean_ = false;  // fast_ && hits_first_: decide() may take its lean path
  std::uint64_t early_stops_ = 0, row_skips_ = 0;
  std::uint64_t lean_decisions_[2] = {0, 0}, full_decisions_ = 0;

  std::vector<Request> pool_;
  std::uint32_t free_ = kNone;
  std::vector<std::uint32_t> head_[2], tail_[2];  // per bank, per kind (0 read, 1 write)
  std::vector<std::uint32_t> where_[2];           // per bank: its slot among its PC's active
  // Per kind: banks_per_pc slots per PC, the first `active` used: the column commands in age
  // order (oldest first), then the `rows` row commands in any order (recompute, enqueue and
  // unlink keep that order).
  std::vector<Slot> slots_[2];
  std::vector<Cached> cache_[2];  // per bank: its candidate for each kind
  std::vector<PcState> pc_;
  std::vector<Cycle> decide_at_;  // per PC: next cycle a decision is due (kept apart: hot)
  Cycle next_decide_ = 0;         // min of decide_at_ (kept up to date)
  std::uint32_t total_[2] = {0, 0};
  std::uint32_t seq_ = 0;
  HbmRing<Done> done_[2];
  bool space_freed_ = false;

  HbmChannelStats stats_;
  double area_[2] = {0, 0};
  Cycle area_at_[2] = {0, 0};
  std::vector<HbmIssued>* log_ = nullptr;
};

}  // namespace systole::models
