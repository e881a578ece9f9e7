#pragma once
// SystemC shell of the GPU L2 (L2Timing): requesters (SMs' copy engines) hand it whole strided
// transfers through MemoryIf; misses and write-backs go on through `memory`, any MemoryIf (HBM,
// a link). The timing model looks a transfer up line by line when it is accepted; the shell
// then costs a few SystemC events per transfer, not per line: one timed wait in finish(), and
// for a transfer that misses, its downstream transfers' begin/finish in four in-order threads
// (fetches issue / arrive, write-backs issue / are retired). Each requester belongs to a
// partition (set_partition; default requester id mod partitions) and has an acceptance queue
// of l2.transfer_queue transfers from acceptance until completion: a full queue refuses
// (try_begin) and is retried when one completes. The L2 is two requesters of its memory:
// `downstream_requester` for fetches (window: mshrs_per_slice x slices lines) and the next id
// for write-backs. Fetches of a stream finish in issue order (a later fetch that the memory
// completes earlier is seen when the ones before it are).

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <vector>

#include "models/common/memory_if.h"
#include "models/common/trace_recorder.h"
#include "models/l2/l2_timing.h"

namespace systole::models {

/// SystemC face of L2Timing: a MemoryIf target upstream, a MemoryIf requester downstream.
class L2Module : public sc_core::sc_module, public MemoryIf {
 public:
  sc_core::sc_port<MemoryIf> memory;  ///< where misses and write-backs go

  L2Module(const sc_core::sc_module_name& name, const L2Config& cfg,
           std::uint16_t downstream_requester = 0);

  /// Puts `requester` in `partition` (before its first transfer).
  void set_partition(std::uint16_t requester, std::uint32_t partition);
  /// Records its fetches (`memory` -> `self`) and write-backs (back), each from its acceptance
  /// by the memory to its end, on unit `self` into `rec`. Call before the run.
  void set_trace(TraceRecorder* rec, const std::string& self, const std::string& memory_path);

  std::uint64_t try_begin(const MemoryTransfer& t) override;
  const sc_core::sc_event& retry_event(std::uint16_t requester) const override;
  sc_core::sc_time finish(std::uint64_t h) override;
  /// Upstream bytes, time with a transfer in progress, peak = all slices' bandwidth.
  MemoryCounters counters() const override;

  const L2Timing& timing() const { return model_; }
  /// Moves the L2 to clock `f` between kernels (L2Timing::set_clock).
  void set_clock(Hz f);
  /// Offers the L2 refused so far (each offer counts).
  std::uint64_t refusals() const { return refusals_; }
  /// SystemC waits in the L2's own threads and finish() so far (the memory's are its own):
  /// the event economy, a few per transfer whatever its lines.
  std::uint64_t waits() const { return waits_; }

 private:
  struct Requester {
    std::uint32_t port = 0;
    std::priority_queue<double, std::vector<double>, std::greater<double>> done;  // known ends
    std::uint32_t unsettled = 0;  // accepted, end not known yet
    sc_core::sc_event retry;      // a place of its queue may have freed
    sc_core::sc_event settled;    // one of its transfers' end became known
    bool has_room(double now_ps, std::uint32_t depth);
  };
  struct Open {
    Requester* requester;
    bool settled;
    double done_ps;
    bool finished;  // finish() has returned: its place may go
  };
  /// Downstream transfers of one kind, issued and finished in order by two threads.
  struct Traced {  // an issued transfer, for the trace
    double accepted_ps;
    std::uint64_t bytes;
    TraceRecorder::Mark mark;
  };
  struct Stream {
    std::deque<MemoryTransfer> queued;  // not yet accepted by the memory
    std::deque<std::uint64_t> issued;   // accepted, not yet finished
    std::deque<Traced> traced;          // with the trace on: one per issued
    sc_core::sc_event queued_ev, issued_ev;
  };
  Requester& requester(std::uint16_t id);
  void push(Stream& s, const std::vector<DmaDescriptor>& descs, bool write, std::uint16_t id);
  void issue(Stream& s, bool fetches);
  void retire(Stream& s, bool fetches);
  void issue_fetches() { issue(fetches_, true); }
  void retire_fetches() { retire(fetches_, true); }
  void issue_writebacks() { issue(writebacks_, false); }
  void retire_writebacks() { retire(writebacks_, false); }
  void settle(const std::vector<L2Settled>& done);
  void wait_for(const sc_core::sc_event& e);
  void account(double now_ps) const;  // retires busy intervals ended by now

  L2Timing model_;
  std::uint32_t depth_;
  std::uint16_t down_id_;
  std::uint32_t window_;  // the fetch stream's outstanding lines (MSHRs)
  std::map<std::uint16_t, std::uint32_t> partition_of_;
  /// The open transfer `h` (accepted, finish() not returned).
  Open& open(std::uint64_t h);

  std::vector<std::unique_ptr<Requester>> requesters_;  // by requester id
  // Transfers by handle from open_first_: access ids count up from 1 in acceptance order, so
  // a queue replaces a hash map; finished ones leave from its front.
  std::deque<Open> open_;
  std::uint64_t open_first_ = 1;
  Stream fetches_, writebacks_;
  sc_core::sc_event never_;
  std::uint64_t refusals_ = 0, waits_ = 0;
  // Busy time: transfers between acceptance and end (ends pushed once known).
  mutable std::priority_queue<double, std::vector<double>, std::greater<double>> ends_;
  mutable std::uint32_t active_ = 0;
  mutable double busy_ps_ = 0, busy_since_ps_ = 0;
  TraceRecorder* trace_ = nullptr;
  std::uint32_t trace_unit_ = 0;
  std::uint16_t self_place_ = 0, memory_place_ = 0, fetch_ = 0, writeback_ = 0;
};

}  // namespace systole::models
