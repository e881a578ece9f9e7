#pragma once
// The text summary printed on stdout: a table of design points and, for small sweeps, the
// layers of each point. For people; HDF5 is for analysis.

#include <string>
#include <vector>

#include "sim/stats/result.h"

namespace systole::stats {

/// Aligned text table; numeric columns right-aligned.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

/// One row per point: index, stable id, swept values, status, cycles, time, utilization, HBM
/// traffic.
std::string points_summary(const std::vector<PointResult>& points,
                           const std::vector<std::string>& swept_paths);

/// One row per layer of one point.
std::string layers_summary(const PointResult& p);

/// A one-line progress bar: "[#####-----] 3/8 points, 1 failed, 0:04".
std::string progress_line(size_t done, size_t total, size_t failed, double elapsed_s);

}  // namespace systole::stats
