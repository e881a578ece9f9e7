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
      lean_(hits_first_),
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
