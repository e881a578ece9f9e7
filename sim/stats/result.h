#pragma once
// What one design point produces: per-layer rows, per-unit tables, an optional operation
// trace, and the key metrics that go into the /sweep row.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/stats/table.h"

namespace systole::stats {

/// One executed operation.
struct TraceEvent {
  std::uint64_t begin = 0;  // cycle
  std::uint64_t end = 0;    // cycle
  std::uint64_t bytes = 0;
  std::uint32_t unit = 0;      // index into Trace::units
  std::uint32_t layer = 0;     // layer index
  std::uint16_t kind = 0;      // index into Trace::kinds
  std::uint16_t src = 0;       // a transfer's source: index into Trace::places (0: none)
  std::uint16_t dst = 0;       // a transfer's destination: index into Trace::places (0: none)
  std::uint32_t instance = 0;  // lowered layer instance (one per repeat; 0: the layer ran once)
};

/// The operation trace of a design point. Version 2 added places, src/dst, instance and the
/// clock; files written before it read back with those empty (results_file.h).
struct Trace {
  static constexpr std::uint32_t kVersion = 2;
  std::vector<std::string> units;   // instance paths: "chip0.core0.dma0", "gpu0.sm3.copy"
  std::vector<std::string> kinds;   // "load", "matmul", "cta", ...
  std::vector<std::string> places;  // memories transfers move between; [0] is "none"
  std::vector<TraceEvent> events;
  double clock = 0;  // Hz of the cycles the events count (0: not recorded)
  bool enabled = false;

  /// Index of memory `path` ("chip0.hbm") in `places`, added when new ("none" first).
  std::uint16_t place(const std::string& path) {
    if (places.empty()) places.push_back("none");
    for (std::size_t i = 0; i < places.size(); ++i)
      if (places[i] == path) return static_cast<std::uint16_t>(i);
    places.push_back(path);
    return static_cast<std::uint16_t>(places.size() - 1);
  }
};

struct PointResult {
  int id = 0;                 // index in the experiment's grid (or sample)
  std::string key;            // stable design point id (sweep::point_key): /points/<key>
  std::string config_hash;    // fingerprint of the resolved config simulated (--resume, merge)
  std::string code_version;   // the simrun that computed it: "0.1.0+<git revision>"
  std::string status = "ok";  // "ok" or "failed"
  std::string error;          // failure message
  std::string label;          // "path=value, ..."
  std::vector<std::pair<std::string, std::string>> assignments;  // swept path -> value text
  double wall_seconds = 0;
  std::string config_yaml;  // fully resolved config of this point
  Record metrics;           // key metrics for the /sweep row (total_cycles, ...)
  Table layers{"layers", "one row per layer"};
  std::vector<Table> units;  // one table per unit kind
  Trace trace;

  bool ok() const { return status == "ok"; }
};

/// Binary serialisation, used to pass a result from a worker process to the parent.
std::string serialize(const PointResult& r);
PointResult deserialize(const std::string& bytes);

}  // namespace systole::stats
