#pragma once
// The stats of one DMA engine, bound into the stats tree: its unit activity (busy, stall,
// transfers, bytes) and, per layer, the bytes it moved to and from each memory.

#include <cstdint>
#include <functional>

#include "models/common/unit_stats.h"

namespace systole::models {

/// Bytes a layer's transfers moved to and from memory `memory` (0 HBM, 1 CMEM).
using MemoryBytesOf = std::function<std::uint64_t(std::size_t layer, int memory)>;

/// Declares one engine's stats in `g`: the unit stats (run and per layer) and hbm_bytes /
/// cmem_bytes per layer (only per layer: the /units/dma table keeps its columns).
void declare_dma_stats(stats::StatGroup& g, UnitCountersOf counters, MemoryBytesOf bytes,
                       const stats::Timebase& tb);

}  // namespace systole::models
