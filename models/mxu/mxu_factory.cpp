#include "models/mxu/mxu_factory.h"

#include "models/mxu/fold_mxu_module.h"
#include "models/mxu/pe_mxu_module.h"

namespace systole::models {

std::unique_ptr<MxuModule> make_mxu_module(const sc_core::sc_module_name& name, std::uint16_t id,
                                           const MxuConfig& cfg, sc_core::sc_time period,
                                           Scoreboard& board, stats::Trace* trace) {
  switch (cfg.model) {
    case MxuModel::kPe:
      return std::make_unique<PeMxuModule>(name, id, cfg, period, board, trace);
    case MxuModel::kFold:
      break;
  }
  return std::make_unique<FoldMxuModule>(name, id, cfg, period, board, trace);
}

}  // namespace systole::models
