#pragma once
// The component registry: kind name -> category, one-line summary, schema and (for system
// kinds) a factory. Populated by explicit register_*() calls, never by static initialisers.

#include <any>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/config/schema.h"

namespace systole {

class Registry {
 public:
  struct Entry {
    std::string kind;      // e.g. "tpu_chip", "mxu", "hbm"
    std::string category;  // "system", "component", "memory", ...
    std::string summary;   // one line
    const config::Schema* schema = nullptr;
    std::any factory;  // category-specific factory type; see factory<F>()
  };

  /// Adds a kind; throws SimError if it already exists.
  void add(Entry e);
  /// Finds a kind; throws ConfigError at `where` listing close matches when it is unknown.
  const Entry& get(const std::string& kind, const Origin& where = {},
                   const std::string& path = "kind", const std::string& category = "") const;
  const Entry* find(const std::string& kind) const;
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<std::string> kinds(const std::string& category = "") const;

  /// Lists the stats a kind declares (path pattern, scope, unit, description) for --describe;
  /// the function builds its declarations without simulating.
  using StatsListing = std::function<std::string()>;
  /// Adds the stats listing of a registered kind; throws SimError if the kind is unknown.
  void add_stats(const std::string& kind, StatsListing listing);
  /// The kind's stats listing, or nullptr if it declares none.
  const StatsListing* stats(const std::string& kind) const;

  /// The factory of `kind`, which must have been registered as an F.
  template <class F>
  const F& factory(const Entry& e) const {
    const F* f = std::any_cast<F>(&e.factory);
    if (!f) throw_bad_factory(e.kind);
    return *f;
  }

 private:
  [[noreturn]] static void throw_bad_factory(const std::string& kind);
  std::vector<Entry> entries_;
  std::map<std::string, StatsListing> stats_;
};

}  // namespace systole
