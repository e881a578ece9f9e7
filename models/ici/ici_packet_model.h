#pragma once
// Packet-level ICI network (the reference): every packet of every transfer crosses every hop.
// A router forwards a packet by virtual cut-through: its head may leave router_latency after it
// arrived, once the output link is free and the next router has buffer room for it; its tail
// follows at the link's rate. Each output port arbitrates round robin over the messages
// waiting for it. Buffers and credits are per message (each message has its own virtual
// channel with `credits` packet slots in every router input it passes; a slot's credit returns
// one link latency after the packet's tail has left that router); the destination sinks
// packets at once. With round-robin links and per-message windows the steady rates are the
// max-min fair ones (Hahne, "Round-robin scheduling for max-min fairness in data networks",
// IEEE JSAC 9(7), 1991), which the flow model computes directly. Assumptions: the chips' ICI
// DMA engines inject and eject on all six links at full rate; a router has as many virtual
// channels as messages cross it (so no deadlock and no head-of-line blocking between messages).

#include <cstdint>
#include <queue>
#include <vector>

#include "models/ici/ici_network.h"

namespace systole::models {

/// Packet-level ICI network: every packet, hop and credit (the reference).
class IciPacketModel : public IciNetwork {
 public:
  IciPacketModel(const IciRoutes& routes, const IciLinkTiming& timing);

  std::uint32_t start(ChipId src, ChipId dst, std::uint64_t bytes, std::uint64_t at_ps) override;
  std::uint64_t next_event_ps() const override {
    return events_.empty() ? kNever : events_.top().at;
  }
  void step(std::vector<IciCompletion>& done) override;
  std::size_t in_flight() const override { return in_flight_; }
  /// Packets sent over links so far (every hop counts).
  std::uint64_t packet_hops() const { return packet_hops_; }

 private:
  enum class Kind : std::uint8_t { kReady, kCredit, kLinkFree, kArrive };
  struct Event {
    std::uint64_t at;
    std::uint64_t seq;
    std::uint32_t flow;   ///< flow (ready, credit), link (link free), transfer (arrive)
    std::uint32_t hop;    ///< which hop of the flow
    std::uint32_t count;  ///< ready: packets
    Kind kind;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  /// A message's state at one hop (the router before link `hop` of its route).
  struct Hop {
    std::uint32_t ready = 0;    ///< packets here, past the router, waiting for the link
    std::uint32_t credits = 0;  ///< free slots at the next router's input (unused on the last)
    std::uint32_t sent = 0;     ///< packets sent over this hop's link
  };
  struct Flow {
    std::vector<LinkId> path;
    std::vector<Hop> hops;
    std::uint32_t transfer = 0;
    std::uint32_t packets = 0;
    std::uint64_t last_bytes = 0;  ///< payload of the last packet (the others are full)
  };
  struct Port {  ///< a router output: its link and the messages waiting for it
    std::uint64_t free_at = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> waiting;  ///< (flow, hop)
    std::size_t next = 0;                                          ///< round-robin pointer
    bool dirty = false;
  };

  void push(std::uint64_t at, Kind k, std::uint32_t flow, std::uint32_t hop = 0,
            std::uint32_t count = 0);
  void mark(LinkId l);
  /// Sends the next packet over link `l` at `now` if it is free and a message may go.
  void arbitrate(LinkId l, std::uint64_t now);
  void send(LinkId l, Port& p, std::size_t i, std::uint64_t now);

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t seq_ = 0;
  std::vector<Flow> flows_;
  std::vector<Port> ports_;
  std::vector<LinkId> dirty_;
  std::size_t in_flight_ = 0;
  std::uint64_t packet_hops_ = 0;
};

}  // namespace systole::models
