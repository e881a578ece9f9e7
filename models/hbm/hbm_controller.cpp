#include "models/hbm/hbm_controller.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/core/error.h"

namespace systole::models {

HbmController::HbmController(const HbmConfig& cfg, std::uint32_t index, std::uint32_t total_pcs,
                             HbmControllerClient& client)
    : dev_(cfg),
      refresh_(cfg, index * static_cast<std::uint32_t>(cfg.pseudo_channels), total_pcs),
      sched_(cfg.scheduler),
      client_(client),
      index_(index),
      page_(cfg.page_policy),
      capacity_{static_cast<std::uint32_t>(cfg.read_queue),
                static_cast<std::uint32_t>(cfg.write_queue)},
      hits_first_(HbmPicker::hits_first(cfg.scheduler)),
      pc_(dev_.pcs()),
      decide_at_(dev_.pcs(), kNever) {
  const double wq = static_cast<double>(cfg.write_queue);
  drain_high_ =
      std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(cfg.write_drain_high * wq)));
  drain_low_ = static_cast<std::uint32_t>(std::floor(cfg.write_drain_low * wq));
  pool_.resize(dev_.pcs() * (capacity_[0] + capacity_[1]));  // queues are per pseudo-channel
  SYSTOLE_ASSERT(pool_.size() < kNoReq, "HBM queues larger than the request index");
  SYSTOLE_ASSERT(dev_.banks_per_pc() <= 64, "HBM: more banks per pseudo-channel than a mask");
  for (std::uint32_t i = 0; i < pool_.size(); ++i)
    pool_[i].next = i + 1 < pool_.size() ? i + 1 : kNone;
  free_ = 0;
  for (int k = 0; k < 2; ++k) {
    head_[k].assign(dev_.banks(), kNone);
    tail_[k].assign(dev_.banks(), kNone);
    where_[k].assign(dev_.banks(), kNone);
    slots_[k].assign(dev_.banks(), Slot{0, 0, 0, 0});
    cache_[k].assign(dev_.banks(), Cached{});
  }
  for (std::uint32_t pc = 0; pc < dev_.pcs(); ++pc) decide_at_[pc] = refresh_.due(pc);
  update_next_decide();
}

void HbmController::enqueue(const HbmRequestIn& r, Cycle now) {
  const int kind = r.write ? 1 : 0;
  SYSTOLE_ASSERT(!full(r.pc, r.write), "HBM request given to a full queue");
  const std::uint32_t idx = free_;
  free_ = pool_[idx].next;
  Request& q = pool_[idx];
  q = {dev_.bank_index(r.pc, r.bg, r.bank), r.row, r.col, r.bursts, seq_++, r.tag, kNone, r.write};
  const std::uint32_t b = q.bank;
  if (tail_[kind][b] == kNone) {  // the bank joins the active list, as a column until computed
    head_[kind][b] = idx;
    PcState& p = pc_[r.pc];
    const std::uint32_t base = r.pc * dev_.banks_per_pc();
    const std::uint32_t pos = base + p.active[kind] - p.rows[kind];  // after the columns
    move_slot(kind, base + p.active[kind], pos);                     // the first row to the end
    ++p.active[kind];
    where_[kind][b] = pos;
    slots_[kind][pos].bank = static_cast<std::uint16_t>(b);
    slots_[kind][pos].group = HbmDevice::kGroupRd;
    slots_[kind][pos].seq = q.seq;  // the youngest: the columns stay in age order
  } else {
    pool_[tail_[kind][b]].next = idx;
  }
  const bool was_active = tail_[kind][b] != kNone;
  tail_[kind][b] = idx;
  count_change(r.pc, kind, +1, now);
  PcState& p = pc_[r.pc];
  // The bank's candidate is its oldest request's (or, FR-FCFS, its oldest row hit's): a request
  // joining behind others changes it only when it is the first hit of the open row. Otherwise
  // the candidate stays valid (the decision is still brought forward to its ready cycle, as
  // for any arrival: that decision may issue a second command in a cycle).
  const Cached& c = cache_[kind][b];
  if (was_active && c.req != kNoReq &&
      (c.cmd != HbmCommand::kPre || !hits_first_ || q.row != dev_.open_row(b))) {
    if (p.refreshing) return;
    const int before = p.mode;
    update_mode(r.pc);
    if (p.mode != before)
      bring_forward(r.pc, now);
    else if (kind == p.mode)
      bring_forward(r.pc, std::max(now, ready(c, b)));
    return;
  }
  const std::uint64_t was_stale = p.stale[kind];
  invalidate(kind, b);
  if (p.refreshing) return;
  const int before = p.mode;
  update_mode(r.pc);
  if (p.mode != before) {
    bring_forward(r.pc, now);
  } else if (kind == p.mode) {
    bring_forward(r.pc, std::max(now, ready(candidate(kind, b), b)));
    p.stale[kind] = was_stale;  // this bank's entry was just recomputed
  }
}

void HbmController::complete(Cycle t) {
  for (;;) {  // completions, oldest first across the read and write pipelines
    const bool r = !done_[0].empty() && done_[0].front().at <= t;
    const bool w = !done_[1].empty() && done_[1].front().at <= t;
    if (!r && !w) break;
    const int k = (r && w) ? (done_[1].front().at < done_[0].front().at ? 1 : 0) : (w ? 1 : 0);
    const Done d = done_[k].front();
    done_[k].pop_front();
    client_.on_request_done(d.tag, d.at);
  }
}

const HbmController::Cached& HbmController::recompute(int kind, std::uint32_t b) {
  Cached& c = entry(kind, b);
  const std::uint32_t h = head_[kind][b];
  std::uint32_t hit = kNone;
  if (dev_.is_open(b)) {
    const auto row = static_cast<std::uint32_t>(dev_.open_row(b));
    if (hits_first_) {
      for (std::uint32_t i = h; i != kNone; i = pool_[i].next)
        if (pool_[i].row == row) {
          hit = i;
          break;
        }
    } else if (pool_[h].row == row) {
      hit = h;
    }
  }
  Slot& sl = slots_[kind][where_[kind][b]];
  std::uint32_t req, gslot;
  if (!dev_.is_open(b)) {
    req = h, gslot = HbmDevice::kGroupAct, c.cmd = HbmCommand::kAct, sl.term = dev_.act_bank(b);
  } else if (hit != kNone) {
    req = hit, gslot = kind ? HbmDevice::kGroupWr : HbmDevice::kGroupRd;
    c.cmd = kind ? HbmCommand::kWrite : HbmCommand::kRead;
    sl.term = dev_.column_bank(b, kind != 0);
  } else {
    req = h, gslot = HbmDevice::kGroupNone, c.cmd = HbmCommand::kPre, sl.term = dev_.pre_bank(b);
  }
  c.req = static_cast<std::uint16_t>(req);
  const auto group = static_cast<std::uint16_t>(4 * dev_.group_of(b) + gslot);
  const bool was_row = is_row(sl.group);
  if (is_row(group)) pc_[dev_.pc_of(b)].row_from[kind] = 0;  // a new row candidate: scan
  sl.group = group;
  sl.seq = pool_[req].seq;
  const std::uint32_t pc = dev_.pc_of(b);
  PcState& p = pc_[pc];
  if (was_row && !is_row(group)) {
    // A new column takes the first row's place (the boundary moves up past it), then its place
    // among the columns by age.
    const std::uint32_t boundary = pc * dev_.banks_per_pc() + p.active[kind] - p.rows[kind];
    swap_slots(kind, where_[kind][b], boundary);
    --p.rows[kind];
    place_column(kind, boundary);
  } else if (!was_row && is_row(group)) {
    // A new row goes to the last column's place (the younger columns move down one), and the
    // boundary moves down onto it.
    column_to_end(kind, pc, where_[kind][b]);
    ++p.rows[kind];
  } else if (!is_row(group)) {
    place_column(kind, where_[kind][b]);
  }
  return c;
}

void HbmController::place_column(int kind, std::uint32_t pos) {
  Slot* sl = slots_[kind].data();
  std::uint32_t* where = where_[kind].data();
  const std::uint32_t pc = dev_.pc_of(pos);  // (slots are laid out as banks are)
  const PcState& p = pc_[pc];
  const std::uint32_t base = pc * dev_.banks_per_pc();
  const std::uint32_t end = base + p.active[kind] - p.rows[kind];
  const Slot s = sl[pos];
  for (; pos > base && sl[pos - 1].seq > s.seq; --pos) {
    sl[pos] = sl[pos - 1];
    where[sl[pos].bank] = pos;
  }
  for (; pos + 1 < end && sl[pos + 1].seq < s.seq; ++pos) {
    sl[pos] = sl[pos + 1];
    where[sl[pos].bank] = pos;
  }
  sl[pos] = s;
  where[s.bank] = pos;
}

std::uint32_t HbmController::column_to_end(int kind, std::uint32_t pc, std::uint32_t pos) {
  Slot* sl = slots_[kind].data();
  std::uint32_t* where = where_[kind].data();
  const PcState& p = pc_[pc];
  const std::uint32_t end = pc * dev_.banks_per_pc() + p.active[kind] - p.rows[kind];
  const Slot s = sl[pos];
  for (; pos + 1 < end; ++pos) {
    sl[pos] = sl[pos + 1];
    where[sl[pos].bank] = pos;
  }
  sl[pos] = s;
  where[s.bank] = pos;
  return pos;
}

void HbmController::move_slot(int kind, std::uint32_t to, std::uint32_t from) {
  if (to == from) return;
  Slot* sl = slots_[kind].data();
  sl[to] = sl[from];
  where_[kind][sl[to].bank] = to;
}

void HbmController::swap_slots(int kind, std::uint32_t a, std::uint32_t b) {
  if (a == b) return;
  Slot* sl = slots_[kind].data();
  std::swap(sl[a], sl[b]);
  where_[kind][sl[a].bank] = a;
  where_[kind][sl[b].bank] = b;
}

void HbmController::decide(std::uint32_t pc, Cycle t) {
  PcState& p = pc_[pc];
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
  if (p.stale[kind]) {  // recompute stale candidates first: the scan below only reads
    const std::uint32_t base = pc * dev_.banks_per_pc();
    for (std::uint64_t m = p.stale[kind]; m; m &= m - 1) {
      const std::uint32_t b = base + static_cast<std::uint32_t>(__builtin_ctzll(m));
      if (head_[kind][b] != kNone && cache_[kind][b].req == kNoReq) recompute(kind, b);
    }
    p.stale[kind] = 0;
  }
  const Slot* slot = slots_[kind].data() + pc * dev_.banks_per_pc();
  // The scan over the candidates (the policy: hbm_scheduler.h). Ages are unique, so the picks do
  // not depend on the order of the slots.
  std::uint32_t i_col = kNone, i_row = kNone;
  bool col_lost = false, row_lost = false;  // FR-FCFS: a ready command is left for later
  bool pre_lost = false;                    // a precharge may be among the ready row commands
  bool rows_scanned = false;                // the fast path scanned the row candidates
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
    // The slots hold the column commands first, in age order, then the row commands. With the
    // column terms ahead no column is ready: they bound the next decision (the waiting
    // columns' exact term can only be later; a decision before it changes nothing). Otherwise
    // the fast path walks the columns oldest first: the first ready one is the pick, and at a
    // second ready one (it lost the bus, so `next` is bounded by the column terms) it stops.
    // The reference scans them all, branch-free (the picks do not depend on their order).
    const std::uint32_t ncols = n - p.rows[kind];
    const bool fast = fast_ && hits_first_;
    if (fast && col_term > t) {
      waiting[HbmDevice::kGroupRd] = col_term;
    } else if (fast) {
      // (col_term <= t here, so it decides nothing; `later` leaves it out too: the next
      // decision takes the larger of `later` and the column terms after the pick, never less
      // than col_term.)
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
      waiting[HbmDevice::kGroupRd] = later;  // (all of them unless col_lost)
    } else {
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
    if (fast && t < p.row_from[kind]) {
      // No row candidate is ready before row_from (their terms only grew since they were
      // scanned): the cycles they were ready at then bound the next decision from below.
      waiting[HbmDevice::kGroupAct] = p.row_wait[kind][0];
      waiting[HbmDevice::kGroupNone] = p.row_wait[kind][1];
      row_skips_ += p.rows[kind] != 0;
    } else {
      const Cycle pc_term[2] = {dev_.act_shared(pc), dev_.row_bus()};
      std::uint32_t row_seq = kNone;
      for (std::uint32_t i = ncols; i < n; ++i) {
        const Slot& c = slot[i];
        const std::uint32_t s = c.group & 3;  // kGroupAct or kGroupNone (a precharge)
        const Cycle r = cmax(cmax(c.term, pc_term[s]), gt[c.group]);
        if (r > t) {
          waiting[s] = std::min(waiting[s], r);
          continue;
        }
        row_lost |= i_row != kNone;
        pre_lost |= s == HbmDevice::kGroupNone;
        if (c.seq < row_seq) row_seq = c.seq, i_row = i;
      }
      rows_scanned = fast;  // (their bound is kept once the picks have issued)
    }
  }
  // Issue at most one column and one row command; the column one may unlink a request, which
  // reorders the active list, so both banks are read first.
  const std::uint32_t col_bank = i_col == kNone ? kNone : slot[i_col].bank;
  const std::uint32_t row_bank = i_row == kNone ? kNone : slot[i_row].bank;
  if (col_bank != kNone) issue_column(kind, col_bank, t);
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
    if (rows_scanned) {
      // The row candidates' bound: the waiting ones' cycles, and for ready ones that lost, the
      // shared terms the picks raised, as for `next`. The bank whose row command issued has a
      // new candidate: recompute() clears the bound if it is a row command again.
      Cycle w0 = waiting[HbmDevice::kGroupAct], w1 = waiting[HbmDevice::kGroupNone];
      if (row_lost) {
        w0 = std::min(w0, act);
        if (pre_lost) w1 = std::min(w1, row);
      }
      p.row_wait[kind][0] = w0;
      p.row_wait[kind][1] = w1;
      p.row_from[kind] = std::min(w0, w1);
    }
  }
  next = std::min(due, next);
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

bool HbmController::other_hit(std::uint32_t b, std::uint32_t row, std::uint32_t except) const {
  for (int k = 0; k < 2; ++k)
    for (std::uint32_t i = head_[k][b]; i != kNone; i = pool_[i].next)
      if (i != except && pool_[i].row == row) return true;
  return false;
}

void HbmController::unlink(int kind, std::uint32_t b, std::uint32_t idx) {
  std::uint32_t prev = kNone;
  for (std::uint32_t i = head_[kind][b]; i != idx; i = pool_[i].next) prev = i;
  const std::uint32_t nxt = pool_[idx].next;
  (prev == kNone ? head_[kind][b] : pool_[prev].next) = nxt;
  if (tail_[kind][b] == idx) tail_[kind][b] = prev;
  if (head_[kind][b] == kNone) {  // the bank leaves the active list
    const std::uint32_t pc = dev_.pc_of(b);
    PcState& p = pc_[pc];
    const std::uint32_t pos = where_[kind][b];
    const std::uint32_t base = pc * dev_.banks_per_pc();
    if (is_row(slots_[kind][pos].group)) {  // the last row fills its place
      --p.rows[kind];
      move_slot(kind, pos, base + --p.active[kind]);
    } else {  // the younger columns move down one (age order), the last row to the last column
      const std::uint32_t last_col = column_to_end(kind, pc, pos);
      move_slot(kind, last_col, base + --p.active[kind]);
    }
    where_[kind][b] = kNone;
  }
  pool_[idx].next = free_;
  free_ = idx;
}

void HbmController::issue_column(int kind, std::uint32_t b, Cycle t) {
  const std::uint32_t idx = entry(kind, b).req;
  Request& q = pool_[idx];
  const bool w = kind != 0;  // (the request's kind: no wait for its load)
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

void HbmController::finish_request(int kind, std::uint32_t b, std::uint32_t idx, Cycle end,
                                   Cycle t) {
  (kind ? stats_.writes : stats_.reads) += 1;
  done_[kind].push_back({end, pool_[idx].tag});
  unlink(kind, b, idx);
  invalidate(kind, b);  // it served the finished request
  count_change(dev_.pc_of(b), kind, -1, t);
  space_freed_ = true;
}

void HbmController::issue_row(int kind, std::uint32_t b, Cycle t) {
  const Cached c = entry(kind, b);
  if (c.cmd == HbmCommand::kAct) {
    dev_.issue_act(b, pool_[c.req].row, t);
    ++stats_.activates;
  } else {
    dev_.issue_pre(b, t);
    ++stats_.precharges;
  }
  note(c.cmd, b, t);
  invalidate(b);
}

void HbmController::issue_refresh(std::uint32_t pc, Cycle t) {
  if (dev_.open_banks(pc)) {
    stats_.precharges += dev_.open_banks(pc);
    dev_.issue(HbmCommand::kPreAll, pc, 0, t);
    note(HbmCommand::kPreAll, pc, t);
    for (std::uint32_t b = pc * dev_.banks_per_pc(); b < (pc + 1) * dev_.banks_per_pc(); ++b)
      invalidate(b);
    return;
  }
  dev_.issue(HbmCommand::kRefresh, pc, 0, t);
  note(HbmCommand::kRefresh, pc, t);
  ++stats_.refreshes;
  pc_[pc].refreshing = false;
  refresh_.refreshed(pc);
}

bool HbmController::slots_consistent() const {
  for (std::uint32_t pc = 0; pc < dev_.pcs(); ++pc) {
    for (int k = 0; k < 2; ++k) {
      const PcState& p = pc_[pc];
      const std::uint32_t base = pc * dev_.banks_per_pc(), n = p.active[k];
      const std::uint32_t ncols = n - p.rows[k];
      for (std::uint32_t i = base; i < base + n; ++i) {
        const Slot& s = slots_[k][i];
        if (where_[k][s.bank] != i || is_row(s.group) != (i >= base + ncols)) return false;
        if (i > base && i < base + ncols && slots_[k][i - 1].seq >= s.seq) return false;
        const Cached& c = cache_[k][s.bank];
        if (c.req != kNoReq && pool_[c.req].seq != s.seq) return false;
      }
    }
  }
  return true;
}

HbmChannelStats HbmController::stats(Cycle now) const {
  HbmChannelStats s = stats_;
  s.read_queue_area =
      area_[0] + static_cast<double>(total_[0]) * static_cast<double>(now - area_at_[0]);
  s.write_queue_area =
      area_[1] + static_cast<double>(total_[1]) * static_cast<double>(now - area_at_[1]);
  s.bank_busy_cycles = dev_.bank_busy_cycles(now);
  return s;
}

}  // namespace systole::models
