#include "models/vector/vector_stats.h"

namespace systole::models {

void declare_vector_stats(stats::StatGroup& g, UnitCountersOf counters,
                          std::function<std::uint64_t(std::size_t scope)> lane_ops,
                          const stats::Timebase& tb) {
  declare_unit_stats(g, "vector ops", std::move(counters), tb);
  g.formula({"lane_ops", "", "lane operations (elements x operations per element)"},
            [lane_ops](std::size_t s) { return static_cast<std::int64_t>(lane_ops(s)); });
}

}  // namespace systole::models
