#include "models/sram/sram_module.h"

#include <algorithm>
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
  const SramConfig& c = timing_.config();
  const auto latency = static_cast<double>(t.write ? c.write_latency.value() : c.latency.value());
  const double banks = timing_.access(now, t.desc, t.write).end_ps + latency;
  // The requester's window: each request holds a slot for the latency after it issues.
  auto w = windows_.try_emplace(t.requester, t.max_outstanding, t.request_bytes).first;
  pending_[next_] = std::max(banks, w->second.transfer(now, t.bytes(), latency));
  return next_++;
}

sc_core::sc_time SramModule::finish(std::uint64_t h) {
  const double done = pending_.at(h);
  pending_.erase(h);
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const double until = std::ceil(done);
  if (until > now)
    sc_core::wait(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(until - now)));
  return sc_core::SC_ZERO_TIME;  // its data has arrived: the latency was inside the window
}

MemoryCounters SramModule::counters() const {
  return {timing_.bytes_read(), timing_.bytes_written(), timing_.busy_ps(), peak_};
}

}  // namespace systole::models
