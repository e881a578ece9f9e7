#include "models/hbm/bandwidth_memory_module.h"

#include <algorithm>
#include <cmath>

namespace systole::models {

BandwidthMemoryModule::BandwidthMemoryModule(const sc_core::sc_module_name& name,
                                             double bytes_per_second, double latency_ps)
    : sc_core::sc_module(name), server_(bytes_per_second, latency_ps) {}

std::uint64_t BandwidthMemoryModule::begin(const MemoryTransfer& t) {
  const std::uint64_t bytes = t.bytes();
  (t.write ? written_ : read_) += bytes;
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  // The bandwidth, first come first served: when the transfer's bytes have crossed it, + latency.
  const double shared = server_.transfer(now, bytes).done_ps;
  // The requester's window: each request holds a slot for the latency after it issues.
  auto w = windows_.try_emplace(t.requester, t.max_outstanding, t.request_bytes).first;
  pending_[next_] = std::max(shared, w->second.transfer(now, bytes, server_.latency_ps()));
  return next_++;
}

sc_core::sc_time BandwidthMemoryModule::finish(std::uint64_t h) {
  const double done = pending_.at(h);
  pending_.erase(h);
  // Round up to whole picoseconds so a transfer never finishes early.
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const double until = std::ceil(done);
  if (until > now) sc_core::wait(sc_core::sc_time(until - now, sc_core::SC_PS));
  return sc_core::SC_ZERO_TIME;  // its data has arrived: the latency was inside the window
}

MemoryCounters BandwidthMemoryModule::counters() const {
  return {read_, written_, server_.busy_ps(), 1e12 / server_.ps_per_byte()};
}

}  // namespace systole::models
