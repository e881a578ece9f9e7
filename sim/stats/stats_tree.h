#pragma once
// The typed statistics tree (DESIGN.md §2), after gem5's Stats groups and SST's statistics: each
// component declares its stats once — name, unit, description, type — in a group at its
// instance path ("chip0.core1.mxu2"); writers (the result tables, --describe) visit the tree.
// A stat has a value for the whole run, for each workload layer, or both: per-layer figures
// come from attributing work to layers, one scheme for every component. No SystemC here and
// no accelerator knowledge.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/stats/table.h"

namespace systole::stats {

/// The scope of a value: a workload layer's index, or kRun for the whole run.
constexpr std::size_t kRun = std::numeric_limits<std::size_t>::max();

/// Which scopes a stat has a value for.
enum class StatScope { kRunOnly, kLayerOnly, kBoth };

/// A stat's declaration: what people and writers see of it.
struct StatInfo {
  std::string name;         ///< snake_case, unique in its group
  std::string unit;         ///< "cycles", "B", "B/s", "s", "" (a count or a ratio) ...
  std::string description;  ///< one line
  ColumnType type = ColumnType::kInt;
  StatScope scope = StatScope::kBoth;
  bool covers(std::size_t scope_index) const {
    return scope_index == kRun ? scope != StatScope::kLayerOnly : scope != StatScope::kRunOnly;
  }
};

/// One statistic: its declaration and its value in a scope (kRun or a layer index).
class Stat {
 public:
  explicit Stat(StatInfo info) : info_(std::move(info)) {}
  virtual ~Stat() = default;
  const StatInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }
  /// The value in `scope`, typed as declared; throws SimError for a scope it does not cover.
  Cell value(std::size_t scope) const;

 protected:
  virtual Cell compute(std::size_t scope) const = 0;

 private:
  StatInfo info_;
};

/// A stat computed when read (gem5's Formula/Value): the function gets the scope.
class Formula : public Stat {
 public:
  using Fn = std::function<Cell(std::size_t scope)>;
  Formula(StatInfo info, Fn fn) : Stat(std::move(info)), fn_(std::move(fn)) {}

 protected:
  Cell compute(std::size_t scope) const override { return fn_(scope); }

 private:
  Fn fn_;
};

/// A counter the component accumulates per layer; its run value is the sum over layers.
template <class T>
class LayerCounter : public Stat {
 public:
  explicit LayerCounter(StatInfo info) : Stat(std::move(info)) {}
  void resize(std::size_t layers) { v_.assign(layers, T{}); }
  void add(std::size_t layer, T x) { v_.at(layer) += x; }
  T at(std::size_t layer) const { return v_.at(layer); }
  T total() const {
    T t{};
    for (const T& x : v_) t += x;
    return t;
  }

 protected:
  Cell compute(std::size_t scope) const override { return scope == kRun ? total() : at(scope); }

 private:
  std::vector<T> v_;
};

class StatGroup;

/// Walks a tree depth first: groups in declaration order, a group's stats before its children.
class StatVisitor {
 public:
  virtual ~StatVisitor() = default;
  virtual void begin_group(const StatGroup& /*g*/) {}
  virtual void stat(const StatGroup& /*g*/, const Stat& /*s*/) {}
  virtual void end_group(const StatGroup& /*g*/) {}
};

/// A node of the tree: one component instance (or a plain container), with its stats and the
/// groups below it. `kind` names what it is ("mxu", "memory"); tables gather groups by kind.
class StatGroup {
 public:
  StatGroup(std::string name, std::string kind, const StatGroup* parent = nullptr);
  StatGroup(const StatGroup&) = delete;
  StatGroup& operator=(const StatGroup&) = delete;

  const std::string& name() const { return name_; }
  const std::string& kind() const { return kind_; }
  const StatGroup* parent() const { return parent_; }
  /// Dotted instance path from the root ("chip0.core1.mxu2").
  std::string path() const;
  /// The path below `ancestor` ("core1.mxu2" below chip0); throws SimError if not below it.
  std::string path_below(const StatGroup& ancestor) const;

  /// Adds a child group; throws SimError if a child or stat of that name exists.
  StatGroup& group(const std::string& name, const std::string& kind);
  /// Declares a computed stat; throws SimError on a duplicate name.
  const Formula& formula(StatInfo info, Formula::Fn fn);
  /// Declares a per-layer counter (sized by resize_layers); throws SimError on a duplicate.
  LayerCounter<std::int64_t>& counter(StatInfo info);
  LayerCounter<double>& real_counter(StatInfo info);
  /// Sizes every layer counter in this subtree for `layers` layers (zeroed).
  void resize_layers(std::size_t layers);

  const std::vector<std::unique_ptr<Stat>>& stats() const { return stats_; }
  const std::vector<std::unique_ptr<StatGroup>>& groups() const { return groups_; }
  const Stat* find(const std::string& name) const;
  const StatGroup* find_group(const std::string& name) const;
  /// Visits this group and everything below it.
  void accept(StatVisitor& v) const;

 private:
  template <class S>
  S& add(std::unique_ptr<S> s);
  void check_free(const std::string& name) const;

  std::string name_;
  std::string kind_;
  const StatGroup* parent_;
  std::vector<std::unique_ptr<Stat>> stats_;
  std::vector<std::unique_ptr<StatGroup>> groups_;
  // Name indexes of stats_ and groups_ (the vectors keep declaration order): a pod declares
  // 24,576 link groups under one parent, and a linear duplicate check per declaration was
  // quadratic (3 of the 5.3 CPU-s of a 4096-chip all-reduce run).
  std::unordered_map<std::string, const Stat*> stat_index_;
  std::unordered_map<std::string, const StatGroup*> group_index_;
  std::vector<LayerCounter<std::int64_t>*> int_counters_;
  std::vector<LayerCounter<double>*> real_counters_;
};

/// Every group of `kind` below (and including) `root`, in visiting order.
std::vector<const StatGroup*> groups_of_kind(const StatGroup& root, const std::string& kind);

}  // namespace systole::stats
