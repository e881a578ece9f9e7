#pragma once
// SystemC channel for a memory timed by a bandwidth/latency model (hbm.model: bandwidth):
// transfers share the bandwidth first come first served; addresses and access patterns do not
// matter. A request holds its requester's outstanding slot for `latency` from its issue
// (RequestWindow) and its data arrives `latency` after its bytes crossed the bandwidth, so a
// requester alone moves exactly min(bandwidth, outstanding x request / latency) (Little's law).
// Each requester may have `depth` transfers accepted and not yet arrived (TimedMemoryModule).
// Assumption: a request's own crossing time (request / bandwidth) does not hold its slot.

#include "models/common/bandwidth_server.h"
#include "models/common/timed_memory_module.h"

namespace systole::models {

/// A memory at bandwidth x efficiency, first come first served (hbm.model: bandwidth).
class BandwidthMemoryModule : public TimedMemoryModule {
 public:
  /// `depth`: transfers a requester may have accepted and not yet arrived (hbm.transfer_queue).
  BandwidthMemoryModule(const sc_core::sc_module_name& name, double bytes_per_second,
                        double latency_ps, std::uint32_t depth);
  MemoryCounters counters() const override;

 protected:
  double accept(const MemoryTransfer& t, double now_ps, RequestWindow& window) override;

 private:
  BandwidthServer server_;
  std::uint64_t read_ = 0;
  std::uint64_t written_ = 0;
};

}  // namespace systole::models
