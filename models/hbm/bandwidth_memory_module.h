#pragma once
// SystemC channel for a memory timed by a bandwidth/latency model (hbm.model: bandwidth):
// transfers share the bandwidth first come first served; addresses and access patterns do not
// matter. A request holds its requester's outstanding slot for `latency` from its issue
// (RequestWindow) and its data arrives `latency` after its bytes crossed the bandwidth, so a
// requester alone moves exactly min(bandwidth, outstanding x request / latency) (Little's law).
// Assumption: a request's own crossing time (request / bandwidth) does not hold its slot.

#include <map>
#include <string>

#include "models/common/bandwidth_server.h"
#include "models/common/memory_if.h"
#include "models/common/request_window.h"

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
  std::map<std::uint16_t, RequestWindow> windows_;  // per requester
  std::map<std::uint64_t, double> pending_;         // handle -> when its data has arrived (ps)
  std::uint64_t next_ = 1;
  std::uint64_t read_ = 0;
  std::uint64_t written_ = 0;
};

}  // namespace systole::models
