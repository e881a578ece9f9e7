#pragma once
// Command scheduling policies of the HBM channel controller (hbm.scheduler): FR-FCFS (Rixner et
// al., ISCA 2000: ready row hits first, then the oldest request) and strict FCFS (only the oldest
// request may advance). A pseudo-channel's decision offers the picker one candidate command per
// bank; the picker chooses at most one column and one row command (the channel has a column and
// a row command bus) and says when the next decision is due. Inline: it runs for every candidate
// of every decision.

#include <algorithm>
#include <cstdint>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_device.h"

namespace systole::models {

/// One decision of the scheduling policy: fed candidates, picks per bus, says when to look again.
class HbmPicker {
 public:
  static constexpr std::uint32_t kNone = ~0u;

  HbmPicker(SchedulerKind kind, Cycle now) : fcfs_(kind == SchedulerKind::kFcfs), now_(now) {}

  /// FR-FCFS looks past a bank's oldest request for one that hits the open row; FCFS does not.
  static bool hits_first(SchedulerKind kind) { return kind == SchedulerKind::kFrFcfs; }

  /// Candidate `i`: a column (row hit) or row command, legal from `ready`, for a request of age
  /// `seq` (arrival order).
  void offer(Cycle ready, std::uint32_t seq, std::uint32_t i, bool column) {
    if (fcfs_) {  // only the oldest request may advance
      if (seq < old_seq_) old_seq_ = seq, old_i_ = i, old_ready_ = ready, old_col_ = column;
      return;
    }
    if (ready > now_) {
      next_ = std::min(next_, ready);
      return;
    }
    if (column) {
      col_lost_ |= col_i_ != kNone;  // a ready command is left for a later cycle
      if (seq < col_seq_) col_seq_ = seq, col_i_ = i;
    } else {
      row_lost_ |= row_i_ != kNone;
      if (seq < row_seq_) row_seq_ = seq, row_i_ = i;
    }
  }

  /// The candidate to issue now on the column / row bus, or kNone.
  std::uint32_t pick(bool column) const {
    if (!fcfs_) return column ? col_i_ : row_i_;
    return old_i_ != kNone && old_ready_ <= now_ && old_col_ == column ? old_i_ : kNone;
  }
  /// A cycle before which no other offered candidate can issue, given the earliest cycle the
  /// column and the row bus can take another command once the picks have issued.
  Cycle next(Cycle column_free, Cycle row_free) const {
    if (fcfs_) return old_i_ == kNone ? kNever : std::max(old_ready_, now_ + 1);
    Cycle n = next_;
    if (col_lost_) n = std::min(n, column_free);
    if (row_lost_) n = std::min(n, row_free);
    return std::max(n, now_ + 1);
  }

 private:
  bool fcfs_;
  bool col_lost_ = false, row_lost_ = false, old_col_ = false;
  Cycle now_;
  Cycle next_ = kNever, old_ready_ = kNever;
  std::uint32_t col_seq_ = kNone, col_i_ = kNone, row_seq_ = kNone, row_i_ = kNone;
  std::uint32_t old_seq_ = kNone, old_i_ = kNone;
};

}  // namespace systole::models
