#pragma once
// The stats of a banked SRAM as its DMA side sees it (tile bytes each way, bank busy and
// conflict time), bound into the stats tree from its timing model.

#include <functional>

#include "models/sram/sram_timing.h"
#include "sim/stats/stats_tree.h"
#include "sim/stats/timebase.h"

namespace systole::models {

/// Declares a VMEM's whole-run stats in `g`; `timing` returns its timing model when a stat is
/// read (for --describe it is never called).
void declare_vmem_stats(stats::StatGroup& g, std::function<const SramTiming&()> timing,
                        const stats::Timebase& tb);

}  // namespace systole::models
