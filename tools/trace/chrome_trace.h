#pragma once
// The Chrome trace-event JSON export of a results file's operation traces, as Perfetto
// (https://ui.perfetto.dev) and chrome://tracing open it:
//   * one process per device of a traced point (chip0, gpu0), named by process_name metadata;
//   * a "layers" track with one slice per layer instance (first to last of its operations);
//   * one thread track per unit (an MXU, DMA engine or vector unit; an SM, its copy engine, the
//     L2's memory side, the kernel stream), in the order of the trace's unit table. Operations
//     that overlap on a unit go to numbered lanes ("core0.dma0 #1") so that no two slices of
//     one track overlap: every recorded operation is one slice, none is dropped;
//   * transfers named by kind, source, destination and size ("load HBM->VMEM 64 KiB") with the
//     full instance paths in their args;
//   * a counter per device-level memory (HBM, CMEM, L2): read and write GB/s per time bin, from
//     the bytes of the recorded transfers that leave or enter it.
// Times are in microseconds with whole nanoseconds, which the viewers import exactly.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/stats/result.h"

namespace systole::trace {

/// What the user asked for that the file cannot give (no trace, no such point, an output path
/// that would overwrite the input): bad input, exit code 2.
class TraceError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 2; }
};

struct ExportOptions {
  std::uint32_t bins = 1000;  ///< counter bins over each device's run
};

/// What an export wrote.
struct ExportCounts {
  std::size_t devices = 0;
  std::size_t tracks = 0;        ///< thread tracks (lanes included) and counter tracks
  std::size_t slices = 0;        ///< one per recorded operation
  std::size_t layer_slices = 0;  ///< one per layer instance
  std::size_t counter_events = 0;
  /// Operations that overlap another on their unit's track without nesting: what one track
  /// per unit would lose, and what the lanes keep.
  std::size_t concurrent = 0;
};

/// The points to export: `point` (its index in the sweep, or its stable id) or, when empty,
/// every point with a trace. Throws TraceError when `point` names no point of the file (listing
/// those there are), when the point has no trace, or when no point has one (saying how to
/// record one). `file` names the file in messages.
std::vector<const stats::PointResult*> traced_points(const std::vector<stats::PointResult>& all,
                                                     const std::string& point,
                                                     const std::string& file);

/// Writes the trace-event JSON of `points` to `os`.
ExportCounts write_chrome_trace(const std::vector<const stats::PointResult*>& points,
                                std::ostream& os, const ExportOptions& opt = {});

}  // namespace systole::trace
