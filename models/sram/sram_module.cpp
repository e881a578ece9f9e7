#include "models/sram/sram_module.h"

#include <cmath>

namespace systole::models {

SramModule::SramModule(const sc_core::sc_module_name& name, const SramConfig& cfg,
                       BytesPerSecond peak)
    : sc_core::sc_module(name), timing_(cfg, peak), peak_(peak.value()) {}

sc_core::sc_time SramModule::access(const DmaDescriptor& d, bool write) {
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const SramGrant g = timing_.access(now, d, write);
  return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::ceil(g.end_ps)));
}

std::uint64_t SramModule::begin(const MemoryTransfer& t) {
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  pending_[next_] = {timing_.access(now, t.desc, t.write).end_ps, t.write};
  return next_++;
}

sc_core::sc_time SramModule::finish(std::uint64_t h) {
  const auto [end, write] = pending_.at(h);
  pending_.erase(h);
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const double until = std::ceil(end);
  if (until > now)
    sc_core::wait(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(until - now)));
  const SramConfig& c = timing_.config();
  return sc_core::sc_time::from_value(write ? c.write_latency.value() : c.latency.value());
}

MemoryCounters SramModule::counters() const {
  return {timing_.bytes_read(), timing_.bytes_written(), timing_.busy_ps(), peak_};
}

}  // namespace systole::models
