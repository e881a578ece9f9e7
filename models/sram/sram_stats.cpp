#include "models/sram/sram_stats.h"

namespace systole::models {

void declare_vmem_stats(stats::StatGroup& g, std::function<const SramTiming&()> timing,
                        const stats::Timebase& tb) {
  const auto run = [](const char* name, const char* unit, const char* desc) {
    return stats::StatInfo{name, unit, desc, stats::ColumnType::kInt, stats::StatScope::kRunOnly};
  };
  g.formula(run("bytes_written", "B", "tile bytes the DMA engines wrote (loads)"),
            [timing](std::size_t) { return static_cast<std::int64_t>(timing().bytes_written()); });
  g.formula(run("bytes_read", "B", "tile bytes the DMA engines read (stores)"),
            [timing](std::size_t) { return static_cast<std::int64_t>(timing().bytes_read()); });
  g.formula(run("busy_cycles", "cycles", "cycles with a bank access in progress"),
            [timing, &tb](std::size_t) { return tb.cycles(timing().busy_ps()); });
  g.formula(run("conflict_cycles", "cycles",
                "cycles accesses took beyond an even spread over every bank and port"),
            [timing, &tb](std::size_t) { return tb.cycles(timing().conflict_ps()); });
}

}  // namespace systole::models
