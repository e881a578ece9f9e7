#include "models/hbm/hbm_device.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace systole::models {

const char* hbm_command_name(HbmCommand c) {
  switch (c) {
    case HbmCommand::kAct:
      return "ACT";
    case HbmCommand::kPre:
      return "PRE";
    case HbmCommand::kPreAll:
      return "PREA";
    case HbmCommand::kRead:
      return "RD";
    case HbmCommand::kWrite:
      return "WR";
    case HbmCommand::kReadAp:
      return "RDA";
    case HbmCommand::kWriteAp:
      return "WRA";
    case HbmCommand::kRefresh:
      return "REF";
  }
  return "?";
}

HbmTimingParams::HbmTimingParams(const HbmConfig& c)
    : cl(c.t_cl),
      cwl(c.t_cwl),
      rcd_rd(c.t_rcd_rd),
      rcd_wr(c.t_rcd_wr),
      rp(c.t_rp),
      ras(c.t_ras),
      rc(c.t_rc),
      wr(c.t_wr),
      rtp(c.t_rtp),
      ccd_s(c.t_ccd_s),
      ccd_l(c.t_ccd_l),
      rrd_s(c.t_rrd_s),
      rrd_l(c.t_rrd_l),
      faw(c.t_faw),
      wtr_s(c.t_wtr_s),
      wtr_l(c.t_wtr_l),
      refi(c.t_refi),
      rfc(c.t_rfc),
      btr(c.t_btr),
      bl(c.t_bl()),
      gap_{std::max(bl, ccd_s), cl + bl + btr - cwl, cwl + bl + wtr_s, cwl + bl + wtr_l,
           cwl + bl + wr} {}

namespace {
std::uint32_t log2_of(std::uint32_t v) {
  std::uint32_t b = 0;
  while ((1u << b) < v) ++b;
  SYSTOLE_ASSERT((1u << b) == v, "HBM bank counts must be powers of two");
  return b;
}
}  // namespace

HbmDevice::HbmDevice(const HbmConfig& cfg)
    : t_(cfg),
      pcs_(static_cast<std::uint32_t>(cfg.pseudo_channels)),
      bgs_(static_cast<std::uint32_t>(cfg.bank_groups)),
      banks_per_bg_(static_cast<std::uint32_t>(cfg.banks_per_group)),
      banks_per_pc_(static_cast<std::uint32_t>(cfg.banks_per_pc())),
      bg_shift_(log2_of(banks_per_bg_)),
      pc_shift_(log2_of(banks_per_pc_)),
      bank_(pcs_ * banks_per_pc_),
      group_(pcs_ * bgs_),
      pc_(pcs_),
      one_bus_(cfg.command_buses == 1) {}

Cycle HbmDevice::earliest(HbmCommand c, std::uint32_t b) const {
  switch (c) {
    case HbmCommand::kAct:
      return is_open(b) ? kNever : act_ready(b);
    case HbmCommand::kPre:
      return is_open(b) ? pre_ready(b) : kNever;
    case HbmCommand::kRead:
    case HbmCommand::kReadAp:
      return is_open(b) ? column_ready(b, false) : kNever;
    case HbmCommand::kWrite:
    case HbmCommand::kWriteAp:
      return is_open(b) ? column_ready(b, true) : kNever;
    case HbmCommand::kPreAll: {
      const Pc& p = pc_[b];
      Cycle t = std::max(p.next_prea, row_bus_);
      for (std::uint32_t k = b * banks_per_pc_; k < (b + 1) * banks_per_pc_; ++k)
        if (is_open(k)) t = std::max(t, bank_[k].next[kPre]);
      return t;
    }
    case HbmCommand::kRefresh: {
      const Pc& p = pc_[b];
      return p.open ? kNever : std::max(p.next_ref, row_bus_);
    }
  }
  return kNever;
}

void HbmDevice::illegal(HbmCommand c, std::uint32_t b, Cycle t) const {
  const Cycle e = earliest(c, b);
  fail_invariant("t >= e", __FILE__, __LINE__,
                 fmt::format("HBM {} to bank {} at cycle {} is illegal before cycle {}",
                             hbm_command_name(c), b, t, e));
}

void HbmDevice::issue(HbmCommand c, std::uint32_t b, std::int64_t row, Cycle t) {
  // Every command is checked against the rules (the controller must never break them); the
  // row cases by their inline versions, the column case without the general dispatch.
  if (c == HbmCommand::kAct) return issue_act(b, row, t);
  if (c == HbmCommand::kPre) return issue_pre(b, t);
  const Cycle e = is_column(c) && is_open(b) ? column_ready(b, is_write(c)) : earliest(c, b);
  if (t < e) illegal(c, b, t);
  auto upd = [](Cycle& v, Cycle x) { v = cmax(v, x); };
  switch (c) {
    case HbmCommand::kAct:
    case HbmCommand::kPre:
      return;  // (above)
    case HbmCommand::kPreAll: {
      Pc& p = pc_[b];
      for (std::uint32_t k = b * banks_per_pc_; k < (b + 1) * banks_per_pc_; ++k) {
        if (is_open(k)) close(k, t);
        upd(bank_[k].next[kAct], t + t_.rp);
      }
      upd(p.next_ref, t + t_.rp);
      used_row_bus(t);
      return;
    }
    case HbmCommand::kRefresh: {
      Pc& p = pc_[b];
      upd(p.next_act, t + t_.rfc);
      upd(p.next_prea, t + t_.rfc);
      upd(p.next_ref, t + t_.rfc);
      used_row_bus(t);
      return;
    }
    case HbmCommand::kRead:
    case HbmCommand::kReadAp: {
      Bank& k = bank_[b];
      Pc& p = pc_[pc_of(b)];
      upd(k.next[kPre], t + t_.rtp);
      upd(group_[group_of(b)].next[kGroupRd], t + t_.ccd_l);
      upd(p.next_rd, t + t_.rd_to_rd_s());
      upd(p.next_wr, t + t_.rd_to_wr());
      if (c == HbmCommand::kReadAp) {
        // The internal precharge starts once tRTP and tRAS allow (tRC covers the latter).
        const Cycle pre_at = std::max(t + t_.rtp, k.opened + t_.ras);
        close(b, pre_at);
        upd(k.next[kAct], pre_at + t_.rp);
        upd(p.next_ref, pre_at + t_.rp);
      }
      used_col_bus(t);
      return;
    }
    case HbmCommand::kWrite:
    case HbmCommand::kWriteAp: {
      Bank& k = bank_[b];
      Pc& p = pc_[pc_of(b)];
      Group& g = group_[group_of(b)];
      upd(k.next[kPre], t + t_.wr_to_pre());
      upd(g.next[kGroupWr], t + t_.ccd_l);
      upd(g.next[kGroupRd], t + t_.wr_to_rd_l());
      upd(p.next_wr, t + t_.rd_to_rd_s());
      upd(p.next_rd, t + t_.wr_to_rd_s());
      if (c == HbmCommand::kWriteAp) {
        const Cycle pre_at = std::max(t + t_.wr_to_pre(), k.opened + t_.ras);
        close(b, pre_at);
        upd(k.next[kAct], pre_at + t_.rp);
        upd(p.next_ref, pre_at + t_.rp);
      }
      used_col_bus(t);
      return;
    }
  }
}

Cycle HbmDevice::bank_busy_cycles(Cycle now) const {
  Cycle busy = busy_;
  for (const Bank& k : bank_)
    if (k.row >= 0) busy += now - k.opened;
  return busy;
}

}  // namespace systole::models
