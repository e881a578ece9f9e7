#include "models/common/memory_stats.h"

namespace systole::models {

void declare_memory_stats(stats::StatGroup& g, std::function<MemoryCounters()> counters,
                          const stats::Timebase& tb) {
  using stats::ColumnType;
  using stats::StatScope;
  const auto run = [](const char* name, const char* unit, const char* desc,
                      ColumnType t = ColumnType::kInt) {
    return stats::StatInfo{name, unit, desc, t, StatScope::kRunOnly};
  };
  const auto bytes_per_s = [counters, &tb] {
    const MemoryCounters mc = counters();
    return static_cast<double>(mc.bytes_read + mc.bytes_written) /
           (tb.span_ps(stats::kRun) * 1e-12);
  };
  g.formula(run("bytes_read", "B", "bytes read"),
            [counters](std::size_t) { return static_cast<std::int64_t>(counters().bytes_read); });
  g.formula(run("bytes_written", "B", "bytes written"), [counters](std::size_t) {
    return static_cast<std::int64_t>(counters().bytes_written);
  });
  g.formula(run("busy_cycles", "cycles", "cycles transferring"),
            [counters, &tb](std::size_t) { return tb.cycles(counters().busy_ps); });
  g.formula(run("idle_cycles", "cycles", "cycles not transferring"), [counters, &tb](std::size_t) {
    return tb.total_cycles - tb.cycles(counters().busy_ps);
  });
  g.formula(run("bandwidth", "B/s", "achieved bandwidth over the run", ColumnType::kFloat),
            [bytes_per_s](std::size_t) { return bytes_per_s(); });
  g.formula(run("utilization", "", "achieved / peak bandwidth", ColumnType::kFloat),
            [bytes_per_s, counters](std::size_t) {
              return bytes_per_s() / counters().peak_bytes_per_second;
            });
}

}  // namespace systole::models
