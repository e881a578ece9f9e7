#include "models/hbm/bandwidth_memory_module.h"

#include <algorithm>

namespace systole::models {

BandwidthMemoryModule::BandwidthMemoryModule(const sc_core::sc_module_name& name,
                                             double bytes_per_second, double latency_ps,
                                             std::uint32_t depth)
    : TimedMemoryModule(name, depth), server_(bytes_per_second, latency_ps) {}

double BandwidthMemoryModule::accept(const MemoryTransfer& t, double now_ps,
                                     RequestWindow& window) {
  const std::uint64_t bytes = t.bytes();
  (t.write ? written_ : read_) += bytes;
  // The bandwidth, first come first served: when the transfer's bytes have crossed it, + latency.
  const double shared = server_.transfer(now_ps, bytes).done_ps;
  // The requester's window: each request holds a slot for the latency after it issues.
  return std::max(shared, window.transfer(now_ps, bytes, server_.latency_ps()));
}

MemoryCounters BandwidthMemoryModule::counters() const {
  return {read_, written_, server_.busy_ps(), 1e12 / server_.ps_per_byte()};
}

}  // namespace systole::models
