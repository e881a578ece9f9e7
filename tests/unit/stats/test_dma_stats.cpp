// One DMA engine's stats (models/dma/dma_stats.h): a core's engine reports per layer the bytes it
// moved to and from HBM and CMEM; the host-link engine, whose ports both reach host memory,
// reports them as host_bytes and has no HBM or CMEM column to mislabel them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <variant>

#include "models/dma/dma_stats.h"
#include "sim/stats/stats_tree.h"

using namespace systole;
using namespace systole::models;

namespace {

/// Bytes per layer and port: port 0 (HBM, or the host) 100 x (layer + 1), port 1 (CMEM) 7.
std::uint64_t bytes(std::size_t layer, int memory) { return memory == 0 ? 100 * (layer + 1) : 7; }

void declare(stats::StatGroup& g, DmaMemories memories, const stats::Timebase& tb) {
  declare_dma_stats(
      g, [](std::size_t) { return UnitCounters{}; }, bytes, [](std::size_t) { return 0.0; }, tb,
      memories);
  g.resize_layers(2);
}

std::int64_t value(const stats::StatGroup& g, const char* stat, std::size_t layer) {
  const auto* s = g.find(stat);
  REQUIRE(s);
  return std::get<std::int64_t>(s->value(layer));
}

}  // namespace

TEST_CASE("a core's DMA engine reports HBM and CMEM bytes, the host engine host bytes",
          "[stats][dma]") {
  stats::Timebase tb;
  tb.layer_cycles = {10, 10};
  tb.total_cycles = 20;
  stats::StatGroup core("dma0", "dma"), host("host_dma", "dma");
  declare(core, DmaMemories::kHbmCmem, tb);
  declare(host, DmaMemories::kHost, tb);
  CHECK(value(core, "hbm_bytes", 1) == 200);
  CHECK(value(core, "cmem_bytes", 1) == 7);
  CHECK(core.find("host_bytes") == nullptr);
  CHECK(value(host, "host_bytes", 0) == 107);
  CHECK(value(host, "host_bytes", 1) == 207);
  CHECK(host.find("hbm_bytes") == nullptr);
  CHECK(host.find("cmem_bytes") == nullptr);
}
