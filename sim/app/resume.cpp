#include "sim/app/resume.h"

#include <fmt/format.h>

#include <filesystem>

#include "sim/core/text.h"
#include "sim/stats/results_file.h"

namespace systole::app {

namespace {

enum class Verdict { kKeep, kChangedConfig, kOtherVersion, kFailedBefore };

Verdict judge(const stats::PointResult& stored, const sweep::Point& p, bool any_version,
              const std::string& code_version) {
  if (!stored.ok()) return Verdict::kFailedBefore;
  // A file from before fingerprints has none: its config cannot be vouched for.
  if (stored.config_hash.empty() || stored.config_hash != p.config_hash)
    return Verdict::kChangedConfig;
  if (!any_version && stored.code_version != code_version) return Verdict::kOtherVersion;
  return Verdict::kKeep;
}

}  // namespace

std::string ResumePlan::summary(size_t planned) const {
  const size_t rerun = changed_config + other_version + failed_before;
  std::vector<std::string> why;
  if (changed_config) why.push_back(fmt::format("{} changed config", changed_config));
  if (other_version) why.push_back(fmt::format("{} other code version", other_version));
  if (failed_before) why.push_back(fmt::format("{} failed before", failed_before));
  return fmt::format(
      "resume: kept {} point{}; rerunning {}{}; {} new", kept.size(), kept.size() == 1 ? "" : "s",
      rerun, why.empty() ? "" : " (" + join(why, ", ") + ")", planned - kept.size() - rerun);
}

ResumePlan plan_resume(const std::vector<sweep::Point>& points,
                       const std::vector<std::string>& files, bool any_version,
                       const std::string& code_version) {
  std::map<std::string, const sweep::Point*> by_key;
  for (const auto& p : points) by_key[p.key] = &p;
  std::map<std::string, std::pair<Verdict, stats::PointResult>> seen;
  for (const auto& f : files) {
    std::error_code ec;
    if (!std::filesystem::exists(f, ec)) continue;
    for (auto& r : stats::read_points_isolated(f)) {
      const auto it = by_key.find(r.key);
      if (it == by_key.end()) continue;
      const Verdict v = judge(r, *it->second, any_version, code_version);
      const std::string key = r.key;
      auto old = seen.find(key);
      if (old != seen.end() && old->second.first == Verdict::kKeep && v != Verdict::kKeep)
        continue;  // a usable result beats a later unusable one
      seen[key] = {v, std::move(r)};
    }
  }
  ResumePlan plan;
  for (auto& [key, entry] : seen) {
    auto& [verdict, r] = entry;
    const sweep::Point& p = *by_key[key];
    switch (verdict) {
      case Verdict::kKeep:
        r.id = p.id;  // the grid may have grown around it
        r.label = p.label();
        plan.kept[key] = std::move(r);
        break;
      case Verdict::kChangedConfig:
        ++plan.changed_config;
        break;
      case Verdict::kOtherVersion:
        ++plan.other_version;
        break;
      case Verdict::kFailedBefore:
        ++plan.failed_before;
        break;
    }
  }
  return plan;
}

}  // namespace systole::app
