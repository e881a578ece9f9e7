#pragma once
// The MemoryIf face shared by the memories that know when a transfer's data arrives as soon as
// they accept it (the bandwidth HBM model, CMEM). Per requester: an outstanding-request window
// (RequestWindow) and an acceptance queue of `depth` transfers (AcceptanceQueue); a transfer
// holds its place from acceptance until its data has arrived, and a refused requester is
// retried when the earliest of them completes. The derived memory times each accepted transfer.

#include <cstdint>
#include <map>
#include <memory>

#include "models/common/acceptance_queue.h"
#include "models/common/memory_if.h"
#include "models/common/request_window.h"

namespace systole::models {

/// A memory that times a transfer when it accepts it; back-pressure by a bounded queue per
/// requester (depth transfers between acceptance and the arrival of their data).
class TimedMemoryModule : public sc_core::sc_module, public MemoryIf {
 public:
  std::uint64_t try_begin(const MemoryTransfer& t) override;
  const sc_core::sc_event& retry_event(std::uint16_t requester) const override;
  sc_core::sc_time finish(std::uint64_t h) override;
  /// Transfers the memory has refused so far (each offer counts).
  std::uint64_t refusals() const { return refusals_; }

 protected:
  TimedMemoryModule(const sc_core::sc_module_name& name, std::uint32_t depth);
  /// Times `t`, accepted at `now_ps`: returns when its data has arrived. `window` is its
  /// requester's outstanding-request window.
  virtual double accept(const MemoryTransfer& t, double now_ps, RequestWindow& window) = 0;

 private:
  struct Port {
    Port(std::uint32_t slots, std::uint32_t request_bytes, std::uint32_t depth)
        : window(slots, request_bytes), queue(depth) {}
    RequestWindow window;
    AcceptanceQueue queue;
    sc_core::sc_event retry;  // a place of the queue frees
  };
  Port& port(const MemoryTransfer& t);

  std::uint32_t depth_;
  std::map<std::uint16_t, std::unique_ptr<Port>> ports_;  // per requester
  std::map<std::uint64_t, double> pending_;  // handle -> when its data has arrived (ps)
  std::uint64_t next_ = 1;
  std::uint64_t refusals_ = 0;
  sc_core::sc_event never_;  // the retry event of a requester not seen yet
};

}  // namespace systole::models
