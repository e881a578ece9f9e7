#include "sim/registry/registry.h"

#include <fmt/format.h>

#include "sim/core/text.h"

namespace systole {

void Registry::add(Entry e) {
  if (find(e.kind)) throw SimError("component kind '" + e.kind + "' registered twice");
  entries_.push_back(std::move(e));
}

void Registry::add_stats(const std::string& kind, StatsListing listing) {
  if (!find(kind)) throw SimError("stats listing for unregistered kind '" + kind + "'");
  stats_[kind] = std::move(listing);
}

const Registry::StatsListing* Registry::stats(const std::string& kind) const {
  const auto it = stats_.find(kind);
  return it == stats_.end() ? nullptr : &it->second;
}

const Registry::Entry* Registry::find(const std::string& kind) const {
  for (const auto& e : entries_)
    if (e.kind == kind) return &e;
  return nullptr;
}

std::vector<std::string> Registry::kinds(const std::string& category) const {
  std::vector<std::string> k;
  for (const auto& e : entries_)
    if (category.empty() || e.category == category) k.push_back(e.kind);
  return k;
}

const Registry::Entry& Registry::get(const std::string& kind, const Origin& where,
                                     const std::string& path, const std::string& category) const {
  const Entry* e = find(kind);
  if (e && (category.empty() || e->category == category)) return *e;
  const auto options = kinds(category);
  throw ConfigError(
      where, path,
      fmt::format("unknown {}kind '{}'{}; known kinds: {}", category.empty() ? "" : category + " ",
                  kind, did_you_mean(kind, options), join(options)));
}

void Registry::throw_bad_factory(const std::string& kind) {
  throw SimError("component kind '" + kind + "' has no factory of the requested type");
}

}  // namespace systole
