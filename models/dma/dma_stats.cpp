#include "models/dma/dma_stats.h"

namespace systole::models {

void declare_dma_stats(stats::StatGroup& g, UnitCountersOf counters, MemoryBytesOf bytes,
                       HeldPsOf held, const stats::Timebase& tb, DmaMemories memories) {
  declare_unit_stats(g, "transfers", std::move(counters), tb);
  g.formula({"held_cycles", "cycles",
             "cycles its transfers waited for a memory to accept them (back-pressure)"},
            [held, &tb](std::size_t s) { return tb.cycles(held(s)); });
  const auto layer = [](const char* name, const char* desc) {
    return stats::StatInfo{name, "B", desc, stats::ColumnType::kInt, stats::StatScope::kLayerOnly};
  };
  if (memories == DmaMemories::kHost) {  // both ports are the host link: one column
    g.formula(
        layer("host_bytes",
              "bytes moved to and from host memory over the host link "
              "(pieces rounded up to the granule)"),
        [bytes](std::size_t l) { return static_cast<std::int64_t>(bytes(l, 0) + bytes(l, 1)); });
    return;
  }
  g.formula(layer("hbm_bytes", "bytes moved to and from HBM (pieces rounded up to the granule)"),
            [bytes](std::size_t l) { return static_cast<std::int64_t>(bytes(l, 0)); });
  g.formula(layer("cmem_bytes", "bytes moved to and from CMEM (pieces rounded up to the granule)"),
            [bytes](std::size_t l) { return static_cast<std::int64_t>(bytes(l, 1)); });
}

}  // namespace systole::models
