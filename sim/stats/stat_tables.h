#pragma once
// Writers over the stats tree: the results tables (/points/<id>/layers, /units/<table>, the
// /sweep metrics) are visits of the tree, and so is the stats listing of `simrun --describe`.
// A system declares once which tables its tree yields (TableSpec); every column is a declared
// stat, so it carries the stat's unit and description.

#include <string>
#include <vector>

#include "sim/stats/stats_tree.h"
#include "sim/stats/table.h"

namespace systole::stats {

/// One results table gathered from the groups of one kind.
struct TableSpec {
  enum class Rows {
    kLayers,          ///< one row per layer: the per-layer stats of the one group of `kind`
    kGroups,          ///< one row per group of `kind` (column `name`): its run stats
    kLayersByGroups,  ///< one row per (layer, group) (columns `layer`, `name`): per-layer stats
  };
  std::string table;        ///< "layers", "mxu", "mxu_layers"
  std::string kind;         ///< the group kind its rows come from
  std::string description;  ///< "one row per MXU"
  Rows rows = Rows::kGroups;
  /// `name` is the group's path below its nearest ancestor of this kind (empty: its instance
  /// path, chip0.core1.mxu2).
  std::string name_below;
  std::string name_description = "unit";
};

/// The table `spec` describes, from the tree at `root`; `layer_names` name the layers (and give
/// their number). Throws SimError if groups of one kind declare different stats.
Table make_table(const StatGroup& root, const TableSpec& spec,
                 const std::vector<std::string>& layer_names);

/// A group's run values as one record (the /sweep metrics of a point).
Record run_record(const StatGroup& g);

/// For people (`simrun --describe`): every stat of the tree — instance path, scope, unit,
/// description — then which group each results table reads.
std::string describe_stats(const StatGroup& root, const std::vector<TableSpec>& specs);

}  // namespace systole::stats
