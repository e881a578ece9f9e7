#pragma once
// The stats of one DMA engine, bound into the stats tree: its unit activity (busy, stall,
// transfers, bytes), the time its transfers were held off by a memory's back-pressure and, per
// layer, the bytes it moved to and from each memory.

#include <cstdint>
#include <functional>

#include "models/common/unit_stats.h"

namespace systole::models {

/// Bytes a layer's transfers moved to and from memory `memory` (0 HBM, 1 CMEM).
using MemoryBytesOf = std::function<std::uint64_t(std::size_t layer, int memory)>;
/// Picoseconds the engine's transfers waited for a memory to accept them, in a scope (a layer,
/// or stats::kRun).
using HeldPsOf = std::function<double(std::size_t scope)>;

/// What an engine's far memories are, for its per-layer byte columns: a core's engine reaches HBM
/// (0) and CMEM (1); the host-link engine reaches host memory alone (both its ports).
enum class DmaMemories { kHbmCmem, kHost };

/// Declares one engine's stats in `g`: the unit stats (run and per layer), the bytes per layer it
/// moved to and from each far memory (hbm_bytes / cmem_bytes, or host_bytes for the host-link
/// engine; only per layer: the /units/dma table keeps its columns), and held_cycles (run and per
/// layer).
void declare_dma_stats(stats::StatGroup& g, UnitCountersOf counters, MemoryBytesOf bytes,
                       HeldPsOf held, const stats::Timebase& tb,
                       DmaMemories memories = DmaMemories::kHbmCmem);

}  // namespace systole::models
