#pragma once
// SystemC channel for a memory timed by a bandwidth/latency model (hbm.model: bandwidth, CMEM):
// transfers are served first come first served at the configured bandwidth; addresses and
// access patterns do not matter.

#include <map>
#include <string>

#include "models/common/bandwidth_server.h"
#include "models/common/memory_if.h"

namespace systole::models {

/// A memory at bandwidth x efficiency, first come first served (hbm.model: bandwidth).
class BandwidthMemoryModule : public sc_core::sc_module, public MemoryIf {
 public:
  BandwidthMemoryModule(const sc_core::sc_module_name& name, double bytes_per_second,
                        double latency_ps);
  std::uint64_t begin(const MemoryTransfer& t) override;
  sc_core::sc_time finish(std::uint64_t h) override;
  MemoryCounters counters() const override;

 private:
  BandwidthServer server_;
  std::map<std::uint64_t, BandwidthServer::Grant> pending_;
  std::uint64_t next_ = 1;
  std::uint64_t read_ = 0;
  std::uint64_t written_ = 0;
};

}  // namespace systole::models
