#pragma once
// The memory side of one SCALE-Sim layer (internal to models/scalesim): walks the folds once,
// event by event, and returns total/stall cycles and the DRAM numbers.

#include <cstdint>

#include "models/scalesim/scalesim_geometry.h"

namespace systole::models::scalesim {

/// One operand's DRAM trace: words moved, first and last cycle.
struct DramTrace {
  std::int64_t words = 0, start = 0, stop = 0;
};

/// What the memory walk of one layer yields.
struct MemoryOutcome {
  std::int64_t total_cycles = 0;  ///< SCALE-Sim's Total Cycles (index of the last cycle)
  std::int64_t stall_cycles = 0;
  DramTrace ifmap, filter, ofmap;
};

/// CALC mode: read buffers never stall; DRAM reads are the estimator's epochs.
MemoryOutcome walk_calc(const Geometry& g, const ArrayConfig& arch, const ConvLayer& layer);
/// USER mode: read buffers stall while their prefetch windows catch up with the demand.
MemoryOutcome walk_user(const Geometry& g, const ArrayConfig& arch, const ConvLayer& layer);

}  // namespace systole::models::scalesim
