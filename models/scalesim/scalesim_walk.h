#pragma once
// The memory side of one SCALE-Sim layer (internal to models/scalesim): walks the folds once,
// event by event, and returns total/stall cycles and the DRAM numbers.

#include <cstdint>
#include <vector>

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

/// A demand row whose serviced cycles a report needs (SCALE-Sim's SRAM start and stop cycles);
/// the walk fills in everything but `row`.
struct RowProbe {
  std::int64_t row = 0;                 ///< global demand row: fold index x fold_cycles + c
  std::int64_t cycle = 0;               ///< its issue cycle: row + the stalls of earlier rows
  std::int64_t read_stall[2] = {0, 0};  ///< its ifmap and filter read stalls (USER; may be < 0)
  std::int64_t write_stall = 0;         ///< its OFMAP write stall
};

/// First and last global demand row holding an address of an operand (-1, -1: none).
struct RowSpan {
  std::int64_t first = -1, last = -1;
};
/// Rows with an ifmap or filter address (an ifmap read past the input has none).
RowSpan address_rows(const Geometry& g, const ConvLayer& layer, Operand op);
/// Rows with an OFMAP write.
RowSpan ofmap_rows(const Geometry& g);

/// CALC mode: read buffers never stall; DRAM reads are the estimator's epochs.
MemoryOutcome walk_calc(const Geometry& g, const ArrayConfig& arch, const ConvLayer& layer,
                        std::vector<RowProbe>& probes);
/// USER mode: read buffers stall while their prefetch windows catch up with the demand.
MemoryOutcome walk_user(const Geometry& g, const ArrayConfig& arch, const ConvLayer& layer,
                        std::vector<RowProbe>& probes);

}  // namespace systole::models::scalesim
