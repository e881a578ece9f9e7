#pragma once
// Flow-level ICI network (the fast default): a transfer is a fluid flow over its route, cut into
// one segment per hop. A segment holds the bytes waiting at its hop's router and sends them over
// its link at a rate the link shares max-min fairly among the segments on it (each segment
// capped as below), recomputed only at events, never per packet. Rate changes travel as the
// packets do: a segment's rate reaches the next hop's router as its inflow one hop later
// (link + router latency), and the next hop's sending returns to it as credits one link latency
// later. A segment whose router buffer is empty sends at most at its inflow; one whose credit
// window (`credits` packets sent and not yet credited back) is full sends at most at the credit
// return rate, so a flow held up downstream fills its window and then leaves the rest of its
// upstream links to others, as the packet model's credits do. A message's credits also cap its
// share of a link it does not leave the network from (IciLinkTiming::credit_share; 1 at the
// defaults). Alone on its links a transfer arrives exactly at the packet model's virtual
// cut-through time (ici_network.h). Fidelity: no packets, no arbitration order, fluid buffers
// (models/ici/README.md measures the difference).

#include <cstdint>
#include <queue>
#include <vector>

#include "models/ici/ici_network.h"

namespace systole::models {

/// Flow-level ICI network: transfers as fluid flows, one segment per hop with its router buffer
/// and credit window, at max-min fair link shares (the default).
class IciFlowModel : public IciNetwork {
 public:
  IciFlowModel(const IciRoutes& routes, const IciLinkTiming& timing);

  std::uint32_t start(ChipId src, ChipId dst, std::uint64_t bytes, std::uint64_t at_ps) override;
  std::uint64_t next_event_ps() const override {
    return events_.empty() ? kNever : events_.top().at;
  }
  void step(std::vector<IciCompletion>& done) override;
  std::size_t in_flight() const override { return in_flight_; }
  /// Link rate recomputations so far and the segments they covered (the benchmark's profile).
  std::uint64_t recomputations() const { return recomputations_; }
  std::uint64_t flows_recomputed() const { return flows_recomputed_; }

 private:
  enum class Kind : std::uint8_t { kStart, kInflow, kInflowEnd, kCredit, kEmpty, kFull, kArrive };
  struct Event {
    std::uint64_t at;
    std::uint64_t seq;
    double rate;            ///< inflow, credit: the new share
    std::uint32_t slot;     ///< flow slot (transfer id for arrive)
    std::uint32_t hop;      ///< segment
    std::uint32_t version;  ///< the flow's generation (inflow, credit) or segment's (empty, full)
    Kind kind;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  /// A flow's state at one hop, in work units (bytes x packet_ps; a link at share 1 does
  /// packet_bytes of them per ps).
  struct Segment {
    LinkId link = 0;
    std::uint64_t since = 0;    ///< when q and o were last brought up to date
    double q = 0;               ///< work waiting at this hop's router (hop 0: all not yet sent)
    double o = 0;               ///< work sent and not yet credited back by the next hop
    double x = 0;               ///< share of the link now
    double in = 0;              ///< inflow share (hops > 0)
    double cr = 0;              ///< credit return share (all but the last hop)
    std::uint32_t version = 0;  ///< of its empty/full prediction
    bool on_link = false;
    bool up_done = false;  ///< nothing more will flow in
    bool done = false;
    bool dirty = false;  ///< its rates or state changed since its last prediction
  };
  struct Flow {
    std::vector<Segment> segs;
    std::uint32_t transfer = 0;
    std::uint32_t gen = 0;  ///< bumped when the slot is freed; stale events carry the old one
    double cap = 1;         ///< credit cap on every hop but the last
  };
  struct SegRef {
    std::uint32_t slot;
    std::uint32_t hop;
  };

  void push(std::uint64_t at, Kind k, std::uint32_t slot, std::uint32_t hop = 0,
            std::uint32_t version = 0, double rate = 0);
  std::uint32_t new_slot();
  void handle(const Event& e, std::uint64_t now, std::vector<IciCompletion>& done);
  /// Brings a segment's buffer and window up to `now` at its current rates.
  void advance(Segment& s, std::uint64_t now) const;
  void touch(LinkId l);
  void join(std::uint32_t slot, std::uint32_t hop, std::uint64_t now);
  void finish(std::uint32_t slot, std::uint32_t hop, std::uint64_t now);
  /// Re-rates every link touched at `now` (max-min fair shares under each segment's cap).
  void recompute(std::uint64_t now);
  void rate_link(LinkId l, std::uint64_t now);
  double seg_cap(const Flow& f, const Segment& s, std::uint32_t hop) const;
  void predict(std::uint32_t slot, std::uint32_t hop, std::uint64_t now);

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t seq_ = 0;
  std::uint32_t next_transfer_ = 0;
  std::size_t in_flight_ = 0;
  double window_ = 0;  ///< a credit window in work units
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::vector<SegRef>> link_segs_;  ///< segments on each link
  std::vector<std::uint8_t> link_touched_;
  std::vector<LinkId> touched_;
  // Scratch of one link's rating.
  std::vector<std::pair<double, std::size_t>> order_;
  std::vector<double> share_;
  std::uint32_t prediction_ = 0;  ///< numbers predictions, so a reused slot ignores old ones
  std::uint64_t recomputations_ = 0;
  std::uint64_t flows_recomputed_ = 0;
};

}  // namespace systole::models
