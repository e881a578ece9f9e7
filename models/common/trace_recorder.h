#pragma once
// Collects a device's operation trace while its SystemC modules run (the GPU device, whose
// modules are not program units): unit, kind and place names interned into the stats::Trace
// tables, events timed in picoseconds (the system converts them to cycles of its clock at the
// end), each tagged with the workload layer the device is running. Plain C++; a recorder over
// no trace, or over a disabled one, records nothing and costs one branch per event.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/stats/result.h"

namespace systole::models {

class TraceRecorder {
 public:
  explicit TraceRecorder(stats::Trace* trace)
      : trace_(trace != nullptr && trace->enabled ? trace : nullptr) {}

  bool on() const { return trace_ != nullptr; }
  /// Index of the unit named by instance path `path` ("gpu0.sm3.copy"), added when new.
  std::uint32_t unit(const std::string& path) {
    return static_cast<std::uint32_t>(intern(trace_->units, path));
  }
  /// Index of operation kind `name` ("load", "cta"), added when new.
  std::uint16_t kind(const std::string& name) {
    return static_cast<std::uint16_t>(intern(trace_->kinds, name));
  }
  /// Index of memory `path` ("gpu0.l2") for transfers' source and destination.
  std::uint16_t place(const std::string& path) { return trace_->place(path); }

  /// The layer (and instance) an event belongs to.
  struct Mark {
    std::uint32_t layer = 0, instance = 0;
  };
  /// The layer (and instance) later events belong to.
  void set_layer(std::uint32_t layer, std::uint32_t instance = 0) { now_ = {layer, instance}; }
  /// The layer now: for an event added later that belongs to it.
  Mark mark() const { return now_; }

  /// One operation from `begin_ps` to `end_ps` of the layer now; `src` and `dst` are places
  /// (0: none).
  void add(std::uint32_t unit, std::uint16_t kind, double begin_ps, double end_ps,
           std::uint64_t bytes, std::uint16_t src = 0, std::uint16_t dst = 0) {
    add(now_, unit, kind, begin_ps, end_ps, bytes, src, dst);
  }
  /// One operation of layer `m`.
  void add(const Mark& m, std::uint32_t unit, std::uint16_t kind, double begin_ps, double end_ps,
           std::uint64_t bytes, std::uint16_t src = 0, std::uint16_t dst = 0) {
    if (!trace_) return;
    stats::TraceEvent e;
    e.begin = static_cast<std::uint64_t>(std::llround(begin_ps));
    e.end = static_cast<std::uint64_t>(std::llround(std::max(begin_ps, end_ps)));
    e.bytes = bytes;
    e.unit = unit;
    e.layer = m.layer;
    e.instance = m.instance;
    e.kind = kind;
    e.src = src;
    e.dst = dst;
    trace_->events.push_back(e);
  }

 private:
  static std::size_t intern(std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
    names.push_back(name);
    return names.size() - 1;
  }

  stats::Trace* trace_;
  Mark now_;
};

}  // namespace systole::models
