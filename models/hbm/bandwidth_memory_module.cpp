#include "models/hbm/bandwidth_memory_module.h"

namespace systole::models {

BandwidthMemoryModule::BandwidthMemoryModule(const sc_core::sc_module_name& name,
                                             double bytes_per_second, double latency_ps)
    : sc_core::sc_module(name), server_(bytes_per_second, latency_ps) {}

std::uint64_t BandwidthMemoryModule::begin(const MemoryTransfer& t) {
  const std::uint64_t bytes = t.bytes();
  (t.write ? written_ : read_) += bytes;
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  pending_[next_] = server_.transfer(now, bytes);  // first come, first served
  return next_++;
}

sc_core::sc_time BandwidthMemoryModule::finish(std::uint64_t h) {
  const auto g = pending_.at(h);
  pending_.erase(h);
  // Round up to whole picoseconds so a transfer never finishes early.
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const double issue_end = std::ceil(g.issue_end_ps);
  if (issue_end > now) sc_core::wait(sc_core::sc_time(issue_end - now, sc_core::SC_PS));
  return sc_core::sc_time(std::ceil(g.done_ps) - std::max(issue_end, now), sc_core::SC_PS);
}

MemoryCounters BandwidthMemoryModule::counters() const {
  return {read_, written_, server_.busy_ps(), 1e12 / server_.ps_per_byte()};
}

}  // namespace systole::models
