#pragma once
// --resume: which finished points of earlier results files a run keeps. A stored point is kept
// only when its stable id names a point of this run, it succeeded, its config fingerprint
// equals the point's (the whole resolved system and loaded workload) and it was computed by
// this code version (unless --resume-any-version); every other point runs again.

#include <map>
#include <string>
#include <vector>

#include "sim/stats/result.h"
#include "sim/sweep/expand.h"

namespace systole::app {

struct ResumePlan {
  std::map<std::string, stats::PointResult> kept;  // by point key, renumbered to this run
  size_t changed_config = 0;  // stored, but its config fingerprint differs: rerun
  size_t other_version = 0;   // stored by another code version: rerun
  size_t failed_before = 0;   // stored as failed: rerun
  /// "resume: kept 3 points; rerunning 2 (1 changed config, 1 failed before); 4 new"
  std::string summary(size_t planned) const;
};

/// Reads `files` (those that exist; later ones win) and matches their points against `points`.
ResumePlan plan_resume(const std::vector<sweep::Point>& points,
                       const std::vector<std::string>& files, bool any_version,
                       const std::string& code_version);

}  // namespace systole::app
