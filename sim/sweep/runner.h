#pragma once
// Runs design points in worker processes. SystemC allows one elaboration per process, so every
// point gets a fresh worker, forked from a zygote made when run_points starts (ChildFactory,
// sim/core/subprocess.h: cheaper forks than from the growing parent); up to `jobs` run at once. A
// worker that throws, crashes or runs past the point timeout yields a failed PointResult; the other
// points go on. Workers die with the parent (sim/core/subprocess.h).

#include <functional>
#include <vector>

#include "sim/stats/result.h"
#include "sim/sweep/expand.h"

namespace systole::sweep {

/// Called in the parent with the points being simulated: as workers start and end, and about
/// once a second while they run (a progress display's clock).
using TickFn = std::function<void(const std::vector<const Point*>& running)>;

/// The complete point (with its resolved `root` tree) for one the caller keeps without it.
using ResolveFn = std::function<Point(const Point&)>;

struct RunnerOptions {
  int jobs = 1;
  double point_timeout_s = 0;  ///< > 0: a worker running longer is killed, its point failed
  TickFn on_tick = nullptr;    ///< optional
  /// Optional: the points passed in lack their `root` tree (a 10^4-point sweep's trees made the
  /// zygote, and so every fork, ~20 KB a point larger); each worker, and a failed point's
  /// record, gets it from here.
  ResolveFn resolve = nullptr;
};

/// Runs in the worker: simulates one point.
using PointFn = std::function<stats::PointResult(const Point&)>;
/// Runs in the parent as each point finishes (completion order).
using DoneFn = std::function<void(stats::PointResult)>;

void run_points(const std::vector<const Point*>& points, const PointFn& fn,
                const RunnerOptions& opt, const DoneFn& on_done);

/// Runs one point in this process (no fork): used when a single point is simulated in-process.
stats::PointResult run_point_here(const Point& p, const PointFn& fn);

}  // namespace systole::sweep
