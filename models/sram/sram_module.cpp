#include "models/sram/sram_module.h"

#include <algorithm>
#include <cmath>

namespace systole::models {

SramModule::SramModule(const sc_core::sc_module_name& name, const SramConfig& cfg,
                       BytesPerSecond peak)
    : TimedMemoryModule(name, static_cast<std::uint32_t>(cfg.transfer_queue)),
      timing_(cfg, peak),
      peak_(peak.value()) {}

sc_core::sc_time SramModule::access(const DmaDescriptor& d, bool write) {
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const SramGrant g = timing_.access(now, d, write);
  return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::ceil(g.end_ps)));
}

double SramModule::accept(const MemoryTransfer& t, double now_ps, RequestWindow& window) {
  const SramConfig& c = timing_.config();
  const auto latency = static_cast<double>(t.write ? c.write_latency.value() : c.latency.value());
  const double banks = timing_.access(now_ps, t.desc, t.write).end_ps + latency;
  // The requester's window: each request holds a slot for the latency after it issues.
  return std::max(banks, window.transfer(now_ps, t.bytes(), latency));
}

MemoryCounters SramModule::counters() const {
  return {timing_.bytes_read(), timing_.bytes_written(), timing_.busy_ps(), peak_};
}

}  // namespace systole::models
