#pragma once
// Builds the MXU model variant a config names (mxu.model: fold or pe).

#include <memory>

#include "models/mxu/mxu_module.h"

namespace systole::models {

/// The MXU module of `cfg.model`: FoldMxuModule (fold) or PeMxuModule (pe).
std::unique_ptr<MxuModule> make_mxu_module(const sc_core::sc_module_name& name, std::uint16_t id,
                                           const MxuConfig& cfg, sc_core::sc_time period,
                                           Scoreboard& board, stats::Trace* trace);

}  // namespace systole::models
