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
  std::uint32_t unit = 0;   // index into Trace::units
  std::uint32_t layer = 0;  // layer index
  std::uint16_t kind = 0;   // index into Trace::kinds
};

struct Trace {
  std::vector<std::string> units;
  std::vector<std::string> kinds;
  std::vector<TraceEvent> events;
  bool enabled = false;
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
