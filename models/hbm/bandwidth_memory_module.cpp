#include "models/hbm/bandwidth_memory_module.h"

namespace systole::models {

BandwidthMemoryModule::BandwidthMemoryModule(const sc_core::sc_module_name& name,
                                             double bytes_per_second, double latency_ps)
    : sc_core::sc_module(name), server_(bytes_per_second, latency_ps) {}

sc_core::sc_time BandwidthMemoryModule::transfer(std::uint64_t bytes, bool write) {
  (write ? written_ : read_) += bytes;
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const auto g = server_.transfer(now, bytes);
  // Round up to whole picoseconds so a transfer never finishes early.
  const double issue_end = std::ceil(g.issue_end_ps);
  if (issue_end > now) sc_core::wait(sc_core::sc_time(issue_end - now, sc_core::SC_PS));
  return sc_core::sc_time(std::ceil(g.done_ps) - issue_end, sc_core::SC_PS);
}

}  // namespace systole::models
