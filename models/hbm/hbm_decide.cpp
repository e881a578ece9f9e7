// The scheduling decision of one pseudo-channel (HbmController::decide): the common case on a
// lean path (FR-FCFS with the fast paths on, no refresh due), everything else (refresh, FCFS,
// the reference scan) on the full one. Both give the same commands at the same cycles
// (tests/unit/hbm/test_hbm_fast_paths.cpp, test_hbm_golden.cpp).
#include <algorithm>

#include "models/hbm/hbm_controller.h"

namespace systole::models {

// Inline into both decisions (a call per burst cost more than its body), one copy per kind.
template <int kind>
inline void HbmController::issue_column(std::uint32_t b, Cycle t) {
  const std::uint32_t idx = entry(kind, b).req;
  Request& q = pool_[idx];
  constexpr bool w = kind != 0;  // (the request's kind: no wait for its load)
  HbmCommand cmd = w ? HbmCommand::kWrite : HbmCommand::kRead;
  const bool last = q.bursts == 1;
  if (page_ == PagePolicy::kClosed && last && !other_hit(b, q.row, idx))
    cmd = w ? HbmCommand::kWriteAp : HbmCommand::kReadAp;
  if (cmd == HbmCommand::kRead || cmd == HbmCommand::kWrite)  // (no auto-precharge)
    dev_.issue_column(b, w, t);
  else
    dev_.issue(cmd, b, 0, t);
  note(cmd, b, t);
  const Cycle end = dev_.data_end(cmd, t);
  (w ? stats_.write_bursts : stats_.read_bursts) += 1;
  // The other kind's candidate for this bank: a column command keeps its term (a column
  // command moves only the bank's precharge term); a precharge gets the new one.
  const Cached& other = cache_[1 - kind][b];
  if (other.req != kNoReq && !is_column(other.cmd)) {
    if (other.cmd == HbmCommand::kPre && where_[1 - kind][b] != kNone)
      slots_[1 - kind][where_[1 - kind][b]].term = dev_.pre_bank(b);
    else
      invalidate(1 - kind, b);
  }
  client_.on_burst(q.tag, end);
  if (cmd == HbmCommand::kReadAp || cmd == HbmCommand::kWriteAp) {
    ++stats_.precharges;
    invalidate(b);
  }
  if (__builtin_expect(!last, 1)) {
    --q.bursts;
    ++q.col;
    return;
  }
  finish_request(kind, b, idx, end, t);
}

[[gnu::always_inline]] inline HbmController::RowPick HbmController::pick_row(
    std::uint32_t pc, const Slot* slot, std::uint32_t ncols, std::uint32_t n, Cycle t) const {
  RowPick out;
  const Cycle* gt = dev_.group_terms();
  const Cycle pc_term[2] = {dev_.act_shared(pc), dev_.row_bus()};
  std::uint32_t row_seq = kNone;
  for (std::uint32_t i = ncols; i < n; ++i) {
    const Slot& c = slot[i];
    const std::uint32_t s = c.group & 3;  // kGroupAct or kGroupNone (a precharge)
    const Cycle r = cmax(cmax(c.term, pc_term[s]), gt[c.group]);
    if (r > t) {
      out.waiting[s] = std::min(out.waiting[s], r);
      continue;
    }
    out.lost |= out.i != kNone;
    out.pre_lost |= s == HbmDevice::kGroupNone;
    if (c.seq < row_seq) row_seq = c.seq, out.i = i;
  }
  return out;
}

// The end of every decision: the next one's cycle (at most `next`; the banks that issued have
// new candidates, a column that lost waits for the column terms) and the space freed signalled.
[[gnu::always_inline]] inline void HbmController::finish_decision(std::uint32_t pc, int kind,
                                                                  Cycle t, Cycle next,
                                                                  std::uint32_t col_bank,
                                                                  bool col_lost,
                                                                  std::uint32_t row_bank) {
  const PcState& p = pc_[pc];
  if (space_freed_) update_mode(pc);
  if (__builtin_expect(p.mode != kind, 0)) {
    next = t + 1;  // the other queue was not scanned
  } else {
    if (col_bank != kNone && head_[kind][col_bank] != kNone) {
      // A ready column that lost bounds `next` by the column terms already; the bank's
      // candidate, while it is still a column command, waits for them too.
      const Cached& c = cache_[kind][col_bank];
      if (!col_lost || c.req == kNoReq || !is_column(c.cmd))
        next = std::min(next, ready(candidate(kind, col_bank), col_bank));
    }
    if (row_bank != kNone) next = std::min(next, ready(candidate(kind, row_bank), row_bank));
  }
  decide_at_[pc] = std::max(next, t + 1);
  if (space_freed_) {
    space_freed_ = false;
    client_.on_space(index_, pc, t);
  }
}

void HbmController::decide(std::uint32_t pc, Cycle t) {
  PcState& p = pc_[pc];
  const Cycle due = refresh_.due(pc);
  if (__builtin_expect(!lean_ || due <= t || p.refreshing, 0)) return decide_full(pc, t);
  update_mode(pc);
  if (p.mode)
    decide_lean<1>(pc, t, due);
  else
    decide_lean<0>(pc, t, due);
}

// FR-FCFS with the fast paths, one copy per kind served (decide_full's reference scan gives the
// same commands at the same cycles; decide_full's comments say what a candidate's terms are).
template <int kind>
void HbmController::decide_lean(std::uint32_t pc, Cycle t, Cycle due) {
  PcState& p = pc_[pc];
  constexpr bool w = kind != 0;
  ++lean_decisions_[kind];
  if (p.stale[kind]) refresh_stale(pc, kind);  // the scans below only read
  const Cycle* gt = dev_.group_terms();
  const Slot* slot = slots_[kind].data() + pc * dev_.banks_per_pc();
  const std::uint32_t n = p.active[kind], ncols = n - p.rows[kind];
  // The slots hold the column commands first, in age order, then the row commands. With the
  // column terms ahead no column is ready: they bound the next decision (the waiting columns'
  // exact term can only be later; a decision before it changes nothing). Otherwise the walk
  // goes oldest first: the first ready column is the pick, and at a second ready one (it lost
  // the bus, so `next` is bounded by the column terms) it stops. (The column terms are <= t
  // there, so they decide nothing; `later` leaves them out too: the next decision takes the
  // larger of `later` and the column terms after the pick, never less than them.)
  std::uint32_t i_col = kNone;
  bool col_lost = false;
  Cycle wait_col = dev_.column_shared(pc, w);
  if (wait_col <= t) {
    Cycle later = kNever;
    for (std::uint32_t i = 0; i < ncols; ++i) {
      const Slot& c = slot[i];
      const Cycle r = cmax(c.term, gt[c.group]);
      if (r > t) {
        later = r < later ? r : later;
        continue;
      }
      if (i_col != kNone) {
        col_lost = true;
        break;
      }
      i_col = i;
    }
    early_stops_ += col_lost;
    wait_col = later;  // (all of them unless col_lost)
  }
  // No row candidate is ready before row_from (their terms only grew since they were scanned):
  // the cycles they were ready at then bound the next decision from below. Else they are
  // scanned (their bound is kept once the picks have issued).
  std::uint32_t i_row = kNone;
  bool row_lost = false, pre_lost = false;
  Cycle wait_act, wait_pre;
  const bool rows_scanned = t >= p.row_from[kind];
  if (!rows_scanned) {
    wait_act = p.row_wait[kind][0];
    wait_pre = p.row_wait[kind][1];
    row_skips_ += p.rows[kind] != 0;
  } else {
    const RowPick r = pick_row(pc, slot, ncols, n, t);
    i_row = r.i;
    row_lost = r.lost;
    pre_lost = r.pre_lost;
    wait_act = r.waiting[0];
    wait_pre = r.waiting[1];
  }
  const std::uint32_t col_bank = i_col == kNone ? kNone : slot[i_col].bank;
  std::uint32_t row_bank = i_row == kNone ? kNone : slot[i_row].bank;
  if (__builtin_expect(dev_.one_bus(), 0) && col_bank != kNone && row_bank != kNone)
    row_bank = kNone, row_lost = true;  // one command bus: as in decide_full
  if (col_bank != kNone) issue_column<kind>(col_bank, t);
  if (row_bank != kNone) issue_row(kind, row_bank, t);
  const Cycle act = dev_.act_shared(pc), row = dev_.row_bus(), col = dev_.column_shared(pc, w);
  Cycle next = std::min({cmax(wait_act, act), cmax(wait_pre, row), cmax(wait_col, col)});
  if (col_lost) next = std::min(next, col);
  if (row_lost) next = std::min(next, pre_lost ? row : act);
  next = std::max(next, t + 1);
  if (rows_scanned) {
    // The row candidates' bound: the waiting ones' cycles, and for ready ones that lost, the
    // shared terms the picks raised, as for `next`. The bank whose row command issued has a
    // new candidate: recompute() clears the bound if it is a row command again.
    if (row_lost) {
      wait_act = std::min(wait_act, act);
      if (pre_lost) wait_pre = std::min(wait_pre, row);
    }
    p.row_wait[kind][0] = wait_act;
    p.row_wait[kind][1] = wait_pre;
    p.row_from[kind] = std::min(wait_act, wait_pre);
  }
  finish_decision(pc, kind, t, std::min(due, next), col_bank, col_lost, row_bank);
}

void HbmController::refresh_stale(std::uint32_t pc, int kind) {
  PcState& p = pc_[pc];
  const std::uint32_t base = pc * dev_.banks_per_pc();
  for (std::uint64_t m = p.stale[kind]; m; m &= m - 1) {
    const std::uint32_t b = base + static_cast<std::uint32_t>(__builtin_ctzll(m));
    if (head_[kind][b] != kNone && cache_[kind][b].req == kNoReq) recompute(kind, b);
  }
  p.stale[kind] = 0;
}

// Refresh, FCFS, and FR-FCFS with the fast paths off (the reference).
void HbmController::decide_full(std::uint32_t pc, Cycle t) {
  PcState& p = pc_[pc];
  ++full_decisions_;
  const Cycle due = refresh_.due(pc);
  // (__builtin_expect: refresh, FCFS and mode changes are rare; their code goes out of line.)
  if (__builtin_expect(due <= t, 0)) p.refreshing = true;
  if (__builtin_expect(p.refreshing, 0)) {
    // A due refresh takes the pseudo-channel: close its banks, refresh.
    const HbmCommand c = dev_.open_banks(pc) ? HbmCommand::kPreAll : HbmCommand::kRefresh;
    const Cycle e = dev_.earliest(c, pc);
    if (e <= t) issue_refresh(pc, t);
    decide_at_[pc] = std::max(e, t + 1);
    return;
  }
  update_mode(pc);
  const int kind = p.mode;
  const bool w = kind != 0;
  // A command is legal at the maximum of its bank's own term (kept with the candidate), its
  // bank group's term and its pseudo-channel's (with the command bus): max of three loads.
  // Indexed by the group term's slot (GroupSlot: activate, none = precharge, read, write).
  const Cycle col_term = dev_.column_shared(pc, w);
  const Cycle* gt = dev_.group_terms();
  const std::uint32_t n = p.active[kind];
  if (p.stale[kind]) refresh_stale(pc, kind);  // the scan below only reads
  const Slot* slot = slots_[kind].data() + pc * dev_.banks_per_pc();
  // The scan over the candidates (the policy: hbm_scheduler.h). Ages are unique, so the picks do
  // not depend on the order of the slots.
  std::uint32_t i_col = kNone, i_row = kNone;
  bool col_lost = false, row_lost = false;  // FR-FCFS: a ready command is left for later
  bool pre_lost = false;                    // a precharge may be among the ready row commands
  // The earliest cycle of the waiting candidates per GroupSlot (FR-FCFS): after the picks
  // issue, none of them can issue before that kind's shared term either.
  Cycle waiting[4] = {kNever, kNever, kNever, kNever};
  Cycle next = kNever;
  if (__builtin_expect(sched_ == SchedulerKind::kFcfs, 0)) {
    // FCFS: only the oldest request may advance.
    const Cycle pc_term[4] = {dev_.act_shared(pc), dev_.row_bus(), col_term, col_term};
    std::uint64_t old = ~std::uint64_t{0};
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t k = std::uint64_t{slot[i].seq} << 32 | i;
      old = k < old ? k : old;
    }
    Cycle old_ready = kNever;
    if (n) {
      const auto i = static_cast<std::uint32_t>(old);
      const Slot& c = slot[i];
      old_ready = cmax(cmax(c.term, pc_term[c.group & 3]), gt[c.group]);
      if (old_ready <= t) ((c.group & 3) >= 2 ? i_col : i_row) = i;
      next = cmax(old_ready, t + 1);
    } else {
      next = kNever;
    }
  } else {
    // FR-FCFS with the fast paths off (the reference decide_lean is tested against): every
    // candidate scanned, the columns branch-free (the picks do not depend on their order).
    const std::uint32_t ncols = n - p.rows[kind];
    {  // the columns
      constexpr std::uint64_t kNo = ~std::uint64_t{0};
      std::uint64_t col = kNo;
      std::uint32_t ncol = 0;
      std::uint64_t later = kNever;
      for (std::uint32_t i = 0; i < ncols; ++i) {
        const Slot& c = slot[i];
        const Cycle r = cmax(cmax(c.term, col_term), gt[c.group]);
        const std::uint64_t ready = std::uint64_t{0} - static_cast<std::uint64_t>(r <= t);
        const std::uint64_t kc = (std::uint64_t{c.seq} << 32 | i) | ~ready;
        col = kc < col ? kc : col;
        ncol += static_cast<std::uint32_t>(ready & 1);
        const std::uint64_t rl = static_cast<std::uint64_t>(r) | ready;  // ready: never the least
        later = rl < later ? rl : later;
      }
      if (col != kNo) i_col = static_cast<std::uint32_t>(col);
      col_lost = ncol > 1;
      waiting[HbmDevice::kGroupRd] = static_cast<Cycle>(later);  // (one kind of column per scan)
    }
    {  // the rows
      const RowPick r = pick_row(pc, slot, ncols, n, t);
      i_row = r.i;
      row_lost = r.lost;
      pre_lost = r.pre_lost;
      waiting[0] = r.waiting[0];
      waiting[1] = r.waiting[1];
    }
  }
  // Issue at most one column and one row command; the column one may unlink a request, which
  // reorders the active list, so both banks are read first.
  const std::uint32_t col_bank = i_col == kNone ? kNone : slot[i_col].bank;
  std::uint32_t row_bank = i_row == kNone ? kNone : slot[i_row].bank;
  // One command bus (DDR3): a ready row command loses it to the column command (FR-FCFS: row
  // hits first) and waits for the next clock, as any ready command that lost its bus. (A
  // precharge among the ready row commands has set pre_lost already; FCFS picks only one.)
  if (__builtin_expect(dev_.one_bus(), 0) && col_bank != kNone && row_bank != kNone)
    row_bank = kNone, row_lost = true;
  if (col_bank != kNone) {
    if (kind)
      issue_column<1>(col_bank, t);
    else
      issue_column<0>(col_bank, t);
  }
  if (row_bank != kNone) issue_row(kind, row_bank, t);
  // The next decision: a ready candidate that lost its bus waits at least for the shared terms
  // the picks raised; the banks that issued have new candidates; the others only got later,
  // never earlier. Any bound after this cycle and at or before the first cycle something can
  // issue gives the same commands (a later decision where nothing is ready changes nothing); a
  // tighter one saves decisions.
  if (sched_ != SchedulerKind::kFcfs) {
    const Cycle act = dev_.act_shared(pc), row = dev_.row_bus(), col = dev_.column_shared(pc, w);
    next = std::min({cmax(waiting[0], act), cmax(waiting[1], row), cmax(waiting[2], col)});
    if (col_lost) next = std::min(next, col);
    // Ready activates that lost wait for the activate terms the pick raised (tRRD, tFAW, and
    // the row bus); a precharge only for the row bus.
    if (row_lost) next = std::min(next, pre_lost ? row : act);
    next = std::max(next, t + 1);
  }
  finish_decision(pc, kind, t, std::min(due, next), col_bank, col_lost, row_bank);
}

}  // namespace systole::models
