#include "models/common/unit_stats.h"

#include <string>

namespace systole::models {

void declare_unit_stats(stats::StatGroup& g, const std::string& what, UnitCountersOf counters,
                        const stats::Timebase& tb) {
  using stats::ColumnType;
  const auto busy = [counters, &tb](std::size_t s) { return tb.cycles(counters(s).busy_ps); };
  g.formula({"busy_cycles", "cycles", "cycles issuing " + what},
            [busy](std::size_t s) { return busy(s); });
  g.formula({"idle_cycles", "cycles", "cycles not issuing"},
            [busy, &tb](std::size_t s) { return tb.span(s) - busy(s); });
  g.formula({"stall_cycles", "cycles", "cycles with " + what + " queued but dependencies pending"},
            [counters, &tb](std::size_t s) { return tb.cycles(counters(s).stall_ps); });
  g.formula({"ops", "", what},
            [counters](std::size_t s) { return static_cast<std::int64_t>(counters(s).ops); });
  g.formula({"bytes", "B", "bytes moved"},
            [counters](std::size_t s) { return static_cast<std::int64_t>(counters(s).bytes); });
  g.formula({"utilization", "", "busy cycles / cycles", ColumnType::kFloat},
            [counters, &tb](std::size_t s) { return counters(s).busy_ps / tb.span_ps(s); });
}

}  // namespace systole::models
