#pragma once
// The SystemC interface through which requesters (DMA engines, a MemoryLink) reach a memory
// (HBM, CMEM, or another link): whole strided transfers, so a bank-level memory can split them
// into requests itself (one call per transfer, not one SystemC event per burst).
//
// Back-pressure is a request/retry handshake, as gem5's ports do it (sendTimingReq refused,
// recvReqRetry): try_begin() offers a transfer and the memory refuses it while the requester's
// acceptance queue is full; the memory then notifies retry_event() when a place frees (TLM-2.0's
// END_REQ), and the requester offers it again. begin() is that loop, blocking its thread.
// Why not TLM-2.0 sockets: a transfer is one call, not a payload with four phases; the handle
// and finish() keep the requester's thread in the memory's own event (no BEGIN_RESP/END_RESP
// round trip and no payload or extension per transfer), and sc_port<MemoryIf> binds any memory or
// link the same way. A TLM adapter could wrap this interface one to one: try_begin() is
// nb_transport_fw(BEGIN_REQ) answered TLM_ACCEPTED or refused, retry_event() is END_REQ,
// finish() returns at BEGIN_RESP.

#include <systemc>

#include <array>
#include <cstdint>

#include "models/common/memory_stats.h"  // MemoryCounters
#include "models/dma/dma_descriptor.h"

namespace systole::models {

/// One transfer as the memory sees it.
struct MemoryTransfer {
  DmaDescriptor desc;                 ///< addresses in the memory
  bool write = false;                 ///< towards the memory (a DMA store)
  std::uint16_t requester = 0;        ///< the DMA engine: its own in-order request stream
  std::uint32_t request_bytes = 512;  ///< the engine splits transfers into requests of this size
  std::uint32_t max_outstanding = 1;  ///< requests the engine may have in flight
  /// Other requesters the data also goes to (TMA multicast: the cluster's other CTAs' SMs):
  /// the GPU L2 serves it once and it crosses each of their crossbar ports as well as the
  /// requester's. Memories without per-requester ports (HBM, the bandwidth model) ignore it.
  std::array<std::uint16_t, 3> also{};
  std::uint8_t also_count = 0;
  std::uint64_t bytes() const { return desc.bytes(); }
};

/// What a requester sees of a memory: offer a whole transfer (it may be refused), finish it,
/// read counters. A refused requester waits for retry_event() and offers the transfer again.
class MemoryIf : public virtual sc_core::sc_interface {
 public:
  /// try_begin()'s answer when the memory has no room for the transfer now.
  static constexpr std::uint64_t kRefused = 0;

  /// Offers `t`: when the requester's acceptance queue has room, queues it behind the
  /// requester's earlier transfers and returns a handle for finish(); otherwise returns
  /// kRefused and notifies retry_event(t.requester) once a place has freed. Does not wait.
  virtual std::uint64_t try_begin(const MemoryTransfer& t) = 0;
  /// Notified when `requester`'s acceptance queue may have room again (TLM-2.0's END_REQ).
  virtual const sc_core::sc_event& retry_event(std::uint16_t requester) const = 0;
  /// Called from an SC_THREAD: blocks until the memory has taken the whole transfer `h` (the
  /// requester's engine is then free); returns the extra time until its data has arrived.
  virtual sc_core::sc_time finish(std::uint64_t h) = 0;
  virtual MemoryCounters counters() const = 0;

  /// Called from an SC_THREAD: offers `t` until the memory accepts it (waiting for its retry
  /// events meanwhile); returns the handle.
  std::uint64_t begin(const MemoryTransfer& t) {
    for (;;) {
      const std::uint64_t h = try_begin(t);
      if (h != kRefused) return h;
      sc_core::wait(retry_event(t.requester));
    }
  }
  sc_core::sc_time transfer(const MemoryTransfer& t) { return finish(begin(t)); }
};

}  // namespace systole::models
