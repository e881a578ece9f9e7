#pragma once
// SystemC shell of the bank-level HBM (HbmTiming): DMA engines hand it whole transfers through
// MemoryIf; each engine gets its own request port in the model, which issues an engine's
// transfers in order, the next one's requests right behind the previous one's. The model runs in
// plain C++ and only as far as SystemC time has advanced; the shell sleeps until the model's lower
// bound of the next transfer completion, advances it there and wakes the engine whose transfer
// finished, so a transfer of megabytes costs a handful of SystemC events, not one per burst.
// The fixed `latency` (interface, on-chip network) is the response path after the DRAM: a
// request's data arrives `latency` after its last burst crossed the DRAM bus, and the request
// holds its requester's outstanding slot until then, so latency x bandwidth is the data a
// requester needs in flight (Little's law). A transfer is finished when its last data arrived.
// Back-pressure: each requester may have `transfer_queue` transfers submitted and not yet
// completed; a further one is refused (MemoryIf::try_begin) and retried when one completes.
// Assumption: the whole latency is on the way back (a request reaches its controller at once).

#include <map>
#include <memory>
#include <unordered_map>

#include "models/common/memory_if.h"
#include "models/hbm/hbm_timing.h"

namespace systole::models {

/// Memory cycles and SystemC picoseconds for a clock of period `tck_ps`: cycle c begins at c x
/// tCK; a picosecond lies in cycle floor(ps / tCK), and a cycle maps to the first picosecond
/// that lies in it. Exact inverses (hbm_cycle_of_ps(hbm_cycle_start_ps(c)) == c) at any time:
/// past ~9 ms of simulated time c x tCK outgrows a double's resolution at the picosecond, and
/// without the check a cycle could map to a picosecond of the cycle before, where a wake-up set
/// for it never advanced (a livelock found on an H100 run, tCK = 51200/67 ps, 23.7 ms).
Cycle hbm_cycle_of_ps(std::uint64_t ps, double tck_ps);
std::uint64_t hbm_cycle_start_ps(Cycle c, double tck_ps);

/// SystemC face of HbmTiming: whole transfers in, one wake-up per completion bound.
class HbmModule : public sc_core::sc_module, public MemoryIf {
 public:
  HbmModule(const sc_core::sc_module_name& name, const HbmConfig& cfg);

  std::uint64_t try_begin(const MemoryTransfer& t) override;
  const sc_core::sc_event& retry_event(std::uint16_t requester) const override;
  sc_core::sc_time finish(std::uint64_t h) override;
  MemoryCounters counters() const override;

  /// Brings the model up to the current SystemC time (for statistics at the end of a run).
  void sync();
  const HbmTiming& timing() const { return model_; }
  Cycle to_cycle(sc_core::sc_time t) const;
  sc_core::sc_time from_cycle(Cycle c) const;
  /// Transfers completed and SystemC wake-ups so far (to show the event economy).
  std::uint64_t transfers() const { return transfers_; }
  std::uint64_t wakeups() const { return wakeups_; }
  /// Transfers the memory has refused so far (each offer counts).
  std::uint64_t refusals() const { return refusals_; }

 private:
  struct Requester {
    std::uint32_t port = 0;
    std::uint32_t accepted = 0;  // transfers submitted, not yet completed
    sc_core::sc_event finished;  // one of its transfers completed
  };
  void wake();
  void reschedule();
  Requester& requester(const MemoryTransfer& t);

  HbmTiming model_;
  Cycle latency_;  // the response path, in memory cycles (rounded up)
  std::map<std::uint16_t, std::unique_ptr<Requester>> requesters_;
  struct Open {
    Requester* requester;
    bool done;  // the model completed it
  };
  std::unordered_map<TransferId, Open> open_;  // begun, not yet finished (no order needed)
  sc_core::sc_event wake_ev_;
  sc_core::sc_event never_;  // the retry event of a requester not seen yet
  std::uint32_t depth_;      // hbm.transfer_queue
  std::uint64_t read_ = 0, written_ = 0, transfers_ = 0, wakeups_ = 0, refusals_ = 0;
  std::uint32_t active_ = 0;
  double busy_ps_ = 0, busy_since_ps_ = 0;
};

}  // namespace systole::models
