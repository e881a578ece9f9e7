#include "models/l2/l2_stats.h"

#include <fmt/format.h>

#include "models/l2/l2_timing.h"

namespace systole::models {

namespace {

using stats::ColumnType;

stats::StatInfo run(const char* name, const char* unit, const char* desc,
                    ColumnType t = ColumnType::kInt) {
  return stats::StatInfo{name, unit, desc, t, stats::StatScope::kRunOnly};
}

/// A count read from the counters when the stat is.
void count(stats::StatGroup& g, std::function<const L2Timing&()> timing, const char* name,
           const char* unit, const char* desc, std::uint64_t L2Counters::*m) {
  g.formula(run(name, unit, desc),
            [timing, m](std::size_t) { return static_cast<std::int64_t>(timing().counters().*m); });
}

double ratio(std::uint64_t a, std::uint64_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

}  // namespace

void declare_l2_stats(stats::StatGroup& g, const L2Config& cfg,
                      std::function<const L2Timing&()> timing, bool pattern) {
  using C = L2Counters;
  const struct {
    const char* name;
    const char* unit;
    const char* desc;
    std::uint64_t C::*m;
  } counts[] = {
      {"transfers", "", "upstream transfers accepted", &C::transfers},
      {"bytes_read", "B", "bytes requesters read", &C::bytes_read},
      {"bytes_written", "B", "bytes requesters wrote", &C::bytes_written},
      {"line_accesses", "", "line lookups", &C::line_accesses},
      {"line_hits", "", "lookups of a present line with every touched sector valid", &C::line_hits},
      {"line_sector_misses", "", "lookups of a present line with a touched sector not valid",
       &C::line_sector_misses},
      {"line_misses", "", "lookups of an absent line (allocated)", &C::line_misses},
      {"sector_accesses", "", "sectors touched", &C::sector_accesses},
      {"sector_hits", "", "sectors touched and valid", &C::sector_hits},
      {"sector_misses", "", "sectors touched and not valid", &C::sector_misses},
      {"sectors_fetched", "", "sectors read from memory", &C::sectors_fetched},
      {"sectors_merged", "", "sectors found in flight from memory (merged misses)",
       &C::sectors_merged},
      {"evictions", "", "valid lines replaced", &C::evictions},
      {"writebacks", "", "evicted lines with dirty sectors", &C::writebacks},
      {"writeback_sectors", "", "dirty sectors written back", &C::writeback_sectors},
      {"far_accesses", "", "line lookups homed in a far partition", &C::far_accesses},
      {"fetch_transfers", "", "downstream read transfers", &C::fetch_transfers},
      {"fetch_bytes", "B", "bytes read from memory", &C::fetch_bytes},
      {"writeback_transfers", "", "downstream write transfers", &C::writeback_transfers},
      {"writeback_bytes", "B", "bytes written to memory", &C::writeback_bytes},
  };
  for (const auto& c : counts) count(g, timing, c.name, c.unit, c.desc, c.m);
  g.formula(run("sector_hit_rate", "", "sector_hits / sector_accesses", ColumnType::kFloat),
            [timing](std::size_t) {
              const C& c = timing().counters();
              return ratio(c.sector_hits, c.sector_accesses);
            });
  g.formula(run("line_hit_rate", "", "line_hits / line_accesses", ColumnType::kFloat),
            [timing](std::size_t) {
              const C& c = timing().counters();
              return ratio(c.line_hits, c.line_accesses);
            });
  const auto slice = [&](stats::StatGroup& s, std::size_t i) {
    s.formula(run("bytes", "B", "sector bytes this slice moved (hits and misses)"),
              [timing, i](std::size_t) {
                return static_cast<std::int64_t>(timing().counters().slice_bytes.at(i));
              });
  };
  if (pattern) {
    slice(g.group("slice<i>", "l2_slice"), 0);
    return;
  }
  for (std::int64_t i = 0; i < cfg.slices(); ++i)
    slice(g.group(fmt::format("slice{}", i), "l2_slice"), static_cast<std::size_t>(i));
}

}  // namespace systole::models
