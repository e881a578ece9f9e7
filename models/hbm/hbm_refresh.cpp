#include "models/hbm/hbm_refresh.h"

#include <algorithm>

namespace systole::models {

HbmRefresh::HbmRefresh(const HbmConfig& cfg, std::uint32_t first_pc, std::uint32_t total_pcs)
    : due_(static_cast<std::size_t>(cfg.pseudo_channels), kNever), refi_(cfg.t_refi) {
  if (cfg.refresh == RefreshKind::kNone) return;
  for (std::size_t i = 0; i < due_.size(); ++i)
    due_[i] = refi_ + refi_ * static_cast<Cycle>(first_pc + i) / static_cast<Cycle>(total_pcs);
}

Cycle HbmRefresh::next_due() const { return *std::min_element(due_.begin(), due_.end()); }

}  // namespace systole::models
