#pragma once
// The text summary printed on stdout: a table of design points and, for small sweeps, the
// layers of each point. For people; HDF5 is for analysis.

#include <string>
#include <vector>

#include "sim/stats/result.h"

namespace systole::stats {

/// Aligned text table; numeric columns right-aligned. With `width` > 0 it fits that many
/// columns: dotted headers are shortened to their last part first, then columns are left out
/// from the right (a last line names them); a cell is never cut.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows, size_t width = 0);

/// One row per point: index, stable id, swept values, status, cycles, time, utilization, HBM
/// traffic.
std::string points_summary(const std::vector<PointResult>& points,
                           const std::vector<std::string>& swept_paths, size_t width = 0);

/// Drops what no summary reads (the operation trace, the resolved config text, the unit tables
/// but those pipeline_summary reads), once the point is in the results file: a sweep's parent
/// keeps every point for its summary, ~93 KB each before.
void keep_for_summary(PointResult& p);

/// One row per layer of one point.
std::string layers_summary(const PointResult& p, size_t width = 0);

/// Where a sweep stands, for its progress line.
struct Progress {
  size_t done = 0, total = 0, failed = 0;
  size_t finished_here = 0;  ///< points this run finished (kept --resume points excluded): ETA
  double elapsed_s = 0;
  std::vector<std::string> running;  ///< labels of the points being simulated
  double last_done_s = -1;           ///< elapsed time at the last point this run finished
};

/// A one-line progress bar that fits `width` columns (0: no limit): "[#####-----] 3/8 points,
/// 1 failed, 0:04, ETA 0:07 | running: point 4 (rows=64); point 5 (...)". The ETA assumes the
/// remaining points take as long as those finished so far (their mean, as of the last one to
/// finish), and counts down from there.
std::string progress_line(const Progress& p, size_t width = 0);

/// The terminal's width in columns (COLUMNS, else the tty's, else 0 when unknown).
size_t terminal_width();

/// `text` in lines of at most `width` characters, broken between words (a longer word keeps
/// a line of its own); `width` 0: one line.
std::vector<std::string> wrap_words(const std::string& text, size_t width);

}  // namespace systole::stats
