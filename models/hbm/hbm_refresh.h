#pragma once
// Refresh policies of the HBM channel controller (chosen by hbm.refresh). all_bank: one REFab
// per pseudo-channel every tREFI (FACTS.md §D: 3.9 us), each pseudo-channel's schedule offset
// by tREFI / (pseudo-channels in the system) so refreshes are staggered rather than
// simultaneous; a due refresh takes priority (the controller closes the pseudo-channel's banks
// and refreshes it as soon as the timings allow). none: no refresh (for studies and tests).

#include <cstdint>
#include <vector>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_device.h"

namespace systole::models {

/// When each pseudo-channel of a channel is due for its next all-bank refresh.
class HbmRefresh {
 public:
  /// `first_pc`: index of this channel's first pseudo-channel among `total_pcs` in the system.
  HbmRefresh(const HbmConfig& cfg, std::uint32_t first_pc, std::uint32_t total_pcs);

  /// Cycle pseudo-channel `pc`'s next refresh is due (kNever without refresh).
  Cycle due(std::uint32_t pc) const { return due_[pc]; }
  Cycle next_due() const;
  /// A refresh of `pc` was issued: the next one is due tREFI after the previous due time.
  void refreshed(std::uint32_t pc) { due_[pc] += refi_; }

 private:
  std::vector<Cycle> due_;
  Cycle refi_ = 0;
};

}  // namespace systole::models
