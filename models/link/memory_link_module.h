#pragma once
// A hop between requesters and a memory (a bus, a crossbar port, an on-chip network link): a
// MemoryIf target towards any number of requesters (N:1) and a requester of whatever MemoryIf is
// bound behind it (a memory, or another link). One FIFO of `depth` transfers, shared by all its
// requesters, forwards each transfer `latency` after it entered, in arrival order. A transfer the
// memory refuses stays at the head (head-of-line blocking) until the memory's retry, so a full
// memory fills the link and the link refuses its requesters: back-pressure propagates.
// Fidelity: whole transfers; the latency delays a transfer's start, not each request's round
// trip (the memory's outstanding window sees its own latency only). No bandwidth limit of its
// own. At latency 0 a transfer that finds the FIFO empty goes straight to the memory.

#include <cstdint>
#include <deque>
#include <map>

#include "models/common/memory_if.h"
#include "models/link/memory_link_config.h"

namespace systole::models {

/// A pass-through hop with a bounded FIFO and a fixed latency; propagates back-pressure.
class MemoryLinkModule : public sc_core::sc_module, public MemoryIf {
 public:
  sc_core::sc_port<MemoryIf> memory;  ///< what the link forwards to

  MemoryLinkModule(const sc_core::sc_module_name& name, const MemoryLinkConfig& cfg);

  std::uint64_t try_begin(const MemoryTransfer& t) override;
  const sc_core::sc_event& retry_event(std::uint16_t requester) const override;
  sc_core::sc_time finish(std::uint64_t h) override;
  /// The memory's counters: the link is transparent to bytes.
  MemoryCounters counters() const override { return memory->counters(); }

  std::uint64_t forwarded() const { return forwarded_; }
  /// Offers the link refused (its FIFO full).
  std::uint64_t refusals() const { return refusals_; }
  /// Picoseconds transfers waited at the head of the FIFO for the memory to accept them.
  double held_ps() const { return held_ps_; }

 private:
  struct Entry {
    MemoryTransfer t;
    sc_core::sc_time ready;  // when it may be offered to the memory
    std::uint64_t down = 0;  // the memory's handle, once it accepted it
    bool sent = false;
  };
  void forward();  // SC_THREAD: offers the FIFO's head to the memory, in order

  MemoryLinkConfig cfg_;
  std::deque<std::uint64_t> fifo_;       // link handles not yet accepted by the memory
  std::map<std::uint64_t, Entry> open_;  // link handle -> its transfer, until finish()
  std::uint64_t next_ = 1;
  sc_core::sc_event queued_, sent_, retry_;
  std::uint64_t forwarded_ = 0, refusals_ = 0;
  double held_ps_ = 0;
};

}  // namespace systole::models
