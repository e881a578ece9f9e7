#pragma once
// The DRAM side of one HBM channel: its pseudo-channels, bank groups and banks as state
// machines, and the timing rules between commands. Exact to the memory clock; the rules are
// those of Ramulator 2's HBM2/HBM3 standards (FACTS.md §D, [RAM2-HBM2], [RAM2-HBM3]): per bank
// (tRCD, tRAS, tRP, tRC, tRTP, tWR), per bank group (tCCD_L, tRRD_L, tWTR_L), per
// pseudo-channel (tCCD_S, tRRD_S, tFAW, tWTR_S, read/write turnaround, its own data bus,
// tRFC) and per channel (one row and one column command per clock on the shared buses; with
// `command_buses: 1`, DDR3's one command bus, one command of either kind per clock).
// Assumptions: every command takes one slot on its bus; all-bank refresh per pseudo-channel.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "models/hbm/hbm_config.h"

namespace systole::models {

using Cycle = std::int64_t;
inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max() / 4;
/// Asks the CPU to bring a vector's elements into cache, one 64-byte line at a time (a hint).
template <typename T>
void prefetch_lines(const std::vector<T>& v) {
  const auto* c = reinterpret_cast<const char*>(v.data());
  for (std::size_t o = 0; o < v.size() * sizeof(T); o += 64) __builtin_prefetch(c + o);
}
/// max by value: compiles to a conditional move (std::max's references made branches that
/// mispredict on the scheduler's hot path).
inline Cycle cmax(Cycle a, Cycle b) { return a > b ? a : b; }

enum class HbmCommand : std::uint8_t {
  kAct,      ///< activate a row in one bank
  kPre,      ///< precharge one bank
  kPreAll,   ///< precharge every bank of a pseudo-channel
  kRead,     ///< column read (one burst)
  kWrite,    ///< column write (one burst)
  kReadAp,   ///< read with auto-precharge
  kWriteAp,  ///< write with auto-precharge
  kRefresh,  ///< all-bank refresh of a pseudo-channel
};
const char* hbm_command_name(HbmCommand c);
inline bool is_column(HbmCommand c) {
  return c == HbmCommand::kRead || c == HbmCommand::kWrite || c == HbmCommand::kReadAp ||
         c == HbmCommand::kWriteAp;
}
inline bool is_write(HbmCommand c) { return c == HbmCommand::kWrite || c == HbmCommand::kWriteAp; }

/// The timing parameters in clock cycles, with the composite gaps the rules use.
struct HbmTimingParams {
  Cycle cl, cwl, rcd_rd, rcd_wr, rp, ras, rc, wr, rtp, ccd_s, ccd_l, rrd_s, rrd_l, faw, wtr_s,
      wtr_l, refi, rfc, btr, bl;
  Cycle rd_to_rd_s() const { return gap_[0]; }  ///< data bus and tCCD_S: max(tBL, tCCD_S)
  Cycle rd_to_wr() const { return gap_[1]; }    ///< tCL + tBL + tBTR - tCWL
  Cycle wr_to_rd_s() const { return gap_[2]; }  ///< tCWL + tBL + tWTR_S
  Cycle wr_to_rd_l() const { return gap_[3]; }  ///< tCWL + tBL + tWTR_L
  Cycle wr_to_pre() const { return gap_[4]; }   ///< tCWL + tBL + tWR
  explicit HbmTimingParams(const HbmConfig& c);

 private:
  Cycle gap_[5];  // the composite gaps, computed once (they sit on the per-burst path)
};

/// One channel's DRAM state and timing rules; cycle-exact; commands come from a controller.
class HbmDevice {
 public:
  explicit HbmDevice(const HbmConfig& cfg);

  const HbmTimingParams& timing() const { return t_; }
  /// Asks the CPU to bring the bank, group and pseudo-channel state into cache (a hint).
  void prefetch() const {
    prefetch_lines(bank_);
    prefetch_lines(group_);
    prefetch_lines(pc_);
  }
  std::uint32_t pcs() const { return pcs_; }
  std::uint32_t banks_per_pc() const { return banks_per_pc_; }
  std::uint32_t banks() const { return pcs_ * banks_per_pc_; }
  /// Flat bank index within the channel.
  std::uint32_t bank_index(std::uint32_t pc, std::uint32_t bg, std::uint32_t bank) const {
    return (pc * bgs_ + bg) * banks_per_bg_ + bank;
  }
  // Counts are powers of two (the configuration requires it), so these are shifts.
  std::uint32_t pc_of(std::uint32_t b) const { return b >> pc_shift_; }
  std::uint32_t group_of(std::uint32_t b) const { return b >> bg_shift_; }

  bool is_open(std::uint32_t b) const { return bank_[b].row >= 0; }
  std::int64_t open_row(std::uint32_t b) const { return bank_[b].row; }
  std::uint32_t open_banks(std::uint32_t pc) const { return pc_[pc].open; }

  /// Earliest cycle `c` may issue to bank `b` (for kPreAll / kRefresh: to pseudo-channel `b`),
  /// given every command issued so far; kNever when the bank state forbids it (a column
  /// command to a closed bank, an activate to an open one, a refresh with banks open).
  Cycle earliest(HbmCommand c, std::uint32_t b) const;
  /// Issues `c` at `t` (asserts t >= earliest). `row` is read by kAct only.
  void issue(HbmCommand c, std::uint32_t b, std::int64_t row, Cycle t);

  /// Issues a read or write without auto-precharge to bank `b` at `t`: issue()'s hot case,
  /// inline, with the same check and the same effect.
  void issue_column(std::uint32_t b, bool write, Cycle t) {
    if (__builtin_expect(!is_open(b) || t < column_ready(b, write), 0))
      illegal(write ? HbmCommand::kWrite : HbmCommand::kRead, b, t);
    Bank& k = bank_[b];
    Pc& p = pc_[pc_of(b)];
    Group& g = group_[group_of(b)];
    if (write) {
      k.next[kPre] = cmax(k.next[kPre], t + t_.wr_to_pre());
      g.next[kGroupWr] = cmax(g.next[kGroupWr], t + t_.ccd_l);
      g.next[kGroupRd] = cmax(g.next[kGroupRd], t + t_.wr_to_rd_l());
      p.next_wr = cmax(p.next_wr, t + t_.rd_to_rd_s());
      p.next_rd = cmax(p.next_rd, t + t_.wr_to_rd_s());
    } else {
      k.next[kPre] = cmax(k.next[kPre], t + t_.rtp);
      g.next[kGroupRd] = cmax(g.next[kGroupRd], t + t_.ccd_l);
      p.next_rd = cmax(p.next_rd, t + t_.rd_to_rd_s());
      p.next_wr = cmax(p.next_wr, t + t_.rd_to_wr());
    }
    used_col_bus(t);
  }
  /// Issues an activate of `row` in bank `b` at `t`: issue()'s case, inline (the same check).
  void issue_act(std::uint32_t b, std::int64_t row, Cycle t) {
    if (__builtin_expect(is_open(b) || t < act_ready(b), 0)) illegal(HbmCommand::kAct, b, t);
    Bank& k = bank_[b];
    Pc& p = pc_[pc_of(b)];
    k.row = row;
    k.opened = t;
    k.next[kRd] = cmax(k.next[kRd], t + t_.rcd_rd);
    k.next[kWr] = cmax(k.next[kWr], t + t_.rcd_wr);
    k.next[kPre] = cmax(k.next[kPre], t + t_.ras);
    k.next[kAct] = cmax(k.next[kAct], t + t_.rc);
    Cycle& g = group_[group_of(b)].next[kGroupAct];
    g = cmax(g, t + t_.rrd_l);
    p.next_act = cmax(p.next_act, t + t_.rrd_s);
    p.next_ref = cmax(p.next_ref, t + t_.rc);
    p.faw[p.faw_i] = t;
    p.faw_i = (p.faw_i + 1) % 4;
    ++p.open;
    used_row_bus(t);
  }
  /// Issues a precharge to bank `b` at `t`: issue()'s case, inline (the same check).
  void issue_pre(std::uint32_t b, Cycle t) {
    if (__builtin_expect(!is_open(b) || t < pre_ready(b), 0)) illegal(HbmCommand::kPre, b, t);
    close(b, t);
    Cycle& a = bank_[b].next[kAct];
    a = cmax(a, t + t_.rp);
    Cycle& r = pc_[pc_of(b)].next_ref;
    r = cmax(r, t + t_.rp);
    used_row_bus(t);
  }
  /// Cycle the data of a column command issued at `t` has fully crossed the bus.
  Cycle data_end(HbmCommand c, Cycle t) const { return t + (is_write(c) ? t_.cwl : t_.cl) + t_.bl; }
  /// Sum over banks of cycles with a row open or precharging, up to `now`.
  Cycle bank_busy_cycles(Cycle now) const;

  // Parts of earliest() for the scheduler's hot loop (no state checks): the shared terms of a
  // pseudo-channel and a bank group, and a bank's own term; the rule is their maximum.
  Cycle column_shared(std::uint32_t pc, bool write) const {
    return cmax(write ? pc_[pc].next_wr : pc_[pc].next_rd, col_bus_);
  }
  Cycle column_group(std::uint32_t g, bool write) const {
    return group_[g].next[write ? kGroupWr : kGroupRd];
  }
  Cycle column_bank(std::uint32_t b, bool write) const { return bank_[b].next[write ? kWr : kRd]; }
  /// A bank's own term for an activate (0), precharge (1), read (2) or write (3).
  Cycle bank_term(std::uint32_t b, std::uint32_t slot) const { return bank_[b].next[slot]; }
  Cycle act_shared(std::uint32_t pc) const {
    const Pc& p = pc_[pc];
    return cmax(cmax(p.next_act, p.faw[p.faw_i] + t_.faw), row_bus_);
  }
  Cycle act_group(std::uint32_t g) const { return group_[g].next[kGroupAct]; }
  /// Bank-group terms as a table: term(g, slot) = terms[4 * g + slot], slots kGroupAct,
  /// kGroupNone (no group rule: always in the past), kGroupRd, kGroupWr.
  const Cycle* group_terms() const { return group_.data()->next; }
  enum GroupSlot : std::uint32_t { kGroupAct = 0, kGroupNone = 1, kGroupRd = 2, kGroupWr = 3 };
  Cycle act_bank(std::uint32_t b) const { return bank_[b].next[kAct]; }
  Cycle pre_bank(std::uint32_t b) const { return bank_[b].next[kPre]; }
  Cycle row_bus() const { return row_bus_; }
  /// One command bus for row and column commands (command_buses 1): one command a clock.
  bool one_bus() const { return one_bus_; }
  std::uint32_t groups_per_pc() const { return bgs_; }

  Cycle column_ready(std::uint32_t b, bool write) const {
    return cmax(cmax(column_bank(b, write), column_group(group_of(b), write)),
                column_shared(pc_of(b), write));
  }
  Cycle act_ready(std::uint32_t b) const {
    return cmax(cmax(act_bank(b), act_group(group_of(b))), act_shared(pc_of(b)));
  }
  Cycle pre_ready(std::uint32_t b) const { return cmax(pre_bank(b), row_bus_); }

 private:
  enum Slot : std::uint32_t { kAct = 0, kPre = 1, kRd = 2, kWr = 3 };
  struct Bank {
    Cycle next[4] = {0, 0, 0, 0};  // earliest activate, precharge, read, write (Slot)
    Cycle opened = 0;              // cycle of the last activate
    std::int64_t row = -1;         // open row, -1 when closed
  };
  struct Group {
    Cycle next[4] = {0, -kNever, 0, 0};  // earliest activate, (none), read, write (GroupSlot)
  };
  static_assert(sizeof(Group) == 4 * sizeof(Cycle), "group_terms() reads groups as a table");
  struct Pc {
    Cycle next_act = 0, next_rd = 0, next_wr = 0, next_prea = 0, next_ref = 0;
    Cycle faw[4] = {-kNever, -kNever, -kNever, -kNever};  // last four activates, ring
    std::uint32_t faw_i = 0;                              // oldest entry
    std::uint32_t open = 0;                               // banks with a row open
  };
  void close(std::uint32_t b, Cycle pre_at) {
    Bank& k = bank_[b];
    busy_ += pre_at + t_.rp - k.opened;
    k.row = -1;
    --pc_[pc_of(b)].open;
  }
  /// A row (column) command took the command bus at `t`: with one shared bus (command_buses 1)
  /// neither kind may issue again before t + 1.
  void used_row_bus(Cycle t) {
    row_bus_ = t + 1;
    if (one_bus_) col_bus_ = t + 1;
  }
  void used_col_bus(Cycle t) {
    col_bus_ = t + 1;
    if (one_bus_) row_bus_ = t + 1;
  }
  /// Reports command `c` to bank `b` at `t` as illegal (an internal error).
  [[noreturn]] void illegal(HbmCommand c, std::uint32_t b, Cycle t) const;

  HbmTimingParams t_;
  std::uint32_t pcs_, bgs_, banks_per_bg_, banks_per_pc_, bg_shift_, pc_shift_;
  std::vector<Bank> bank_;
  std::vector<Group> group_;
  std::vector<Pc> pc_;
  Cycle row_bus_ = 0, col_bus_ = 0;
  bool one_bus_ = false;  // command_buses 1: row and column commands share one bus
  Cycle busy_ = 0;        // closed bank-busy intervals
};

}  // namespace systole::models
