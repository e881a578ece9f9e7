#include "sim/stats/stats_tree.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace systole::stats {

Cell Stat::value(std::size_t scope) const {
  if (!info_.covers(scope))
    throw SimError(fmt::format("stat '{}' has no value {}", info_.name,
                               scope == kRun ? "for the whole run" : "per layer"));
  Cell c = compute(scope);
  if (info_.type == ColumnType::kFloat && std::holds_alternative<std::int64_t>(c))
    c = static_cast<double>(std::get<std::int64_t>(c));
  const bool ok = (info_.type == ColumnType::kInt && std::holds_alternative<std::int64_t>(c)) ||
                  (info_.type == ColumnType::kFloat && std::holds_alternative<double>(c)) ||
                  (info_.type == ColumnType::kString && std::holds_alternative<std::string>(c));
  if (!ok) throw SimError(fmt::format("stat '{}' computed a value of the wrong type", info_.name));
  return c;
}

StatGroup::StatGroup(std::string name, std::string kind, const StatGroup* parent)
    : name_(std::move(name)), kind_(std::move(kind)), parent_(parent) {
  if (name_.empty() || name_.find('.') != std::string::npos)
    throw SimError(fmt::format("stat group name '{}' must be non-empty and without '.'", name_));
}

std::string StatGroup::path() const { return parent_ ? parent_->path() + "." + name_ : name_; }

std::string StatGroup::path_below(const StatGroup& ancestor) const {
  std::string p = name_;
  for (const StatGroup* g = parent_; g; g = g->parent_) {
    if (g == &ancestor) return p;
    p = g->name_ + "." + p;
  }
  throw SimError(fmt::format("stat group '{}' is not below '{}'", path(), ancestor.path()));
}

void StatGroup::check_free(const std::string& name) const {
  if (find(name) || find_group(name))
    throw SimError(fmt::format("stat '{}' declared twice in '{}'", name, path()));
}

StatGroup& StatGroup::group(const std::string& name, const std::string& kind) {
  check_free(name);
  groups_.push_back(std::make_unique<StatGroup>(name, kind, this));
  group_index_.emplace(name, groups_.back().get());
  return *groups_.back();
}

template <class S>
S& StatGroup::add(std::unique_ptr<S> s) {
  check_free(s->name());
  if (s->name().empty() || s->name().find('.') != std::string::npos)
    throw SimError(
        fmt::format("stat name '{}' in '{}' must be non-empty and without '.'", s->name(), path()));
  S& ref = *s;
  stat_index_.emplace(ref.name(), &ref);
  stats_.push_back(std::move(s));
  return ref;
}

const Formula& StatGroup::formula(StatInfo info, Formula::Fn fn) {
  return add(std::make_unique<Formula>(std::move(info), std::move(fn)));
}

LayerCounter<std::int64_t>& StatGroup::counter(StatInfo info) {
  info.type = ColumnType::kInt;
  info.scope = StatScope::kBoth;
  auto& c = add(std::make_unique<LayerCounter<std::int64_t>>(std::move(info)));
  int_counters_.push_back(&c);
  return c;
}

LayerCounter<double>& StatGroup::real_counter(StatInfo info) {
  info.type = ColumnType::kFloat;
  info.scope = StatScope::kBoth;
  auto& c = add(std::make_unique<LayerCounter<double>>(std::move(info)));
  real_counters_.push_back(&c);
  return c;
}

void StatGroup::resize_layers(std::size_t layers) {
  for (auto* c : int_counters_) c->resize(layers);
  for (auto* c : real_counters_) c->resize(layers);
  for (auto& g : groups_) g->resize_layers(layers);
}

const Stat* StatGroup::find(const std::string& name) const {
  const auto it = stat_index_.find(name);
  return it == stat_index_.end() ? nullptr : it->second;
}

const StatGroup* StatGroup::find_group(const std::string& name) const {
  const auto it = group_index_.find(name);
  return it == group_index_.end() ? nullptr : it->second;
}

void StatGroup::accept(StatVisitor& v) const {
  v.begin_group(*this);
  for (const auto& s : stats_) v.stat(*this, *s);
  for (const auto& g : groups_) g->accept(v);
  v.end_group(*this);
}

std::vector<const StatGroup*> groups_of_kind(const StatGroup& root, const std::string& kind) {
  struct Collect : StatVisitor {
    const std::string& kind;
    std::vector<const StatGroup*> out;
    explicit Collect(const std::string& k) : kind(k) {}
    void begin_group(const StatGroup& g) override {
      if (g.kind() == kind) out.push_back(&g);
    }
  } c(kind);
  root.accept(c);
  return std::move(c.out);
}

}  // namespace systole::stats
