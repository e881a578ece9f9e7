#pragma once
// Flow-level ICI network (the fast default): a transfer is a fluid flow over its route that
// shares every link with the others there at max-min fair rates (progressive filling), the
// rates recomputed whenever a flow starts or drains, only over the flows connected to it by
// shared links. A flow starts using its links when its first packet leaves the source router
// (start + router latency) and arrives (hops - 1) x (router + link latency) + link latency after
// its last byte has left the source: alone on its links this is exactly the packet model's
// virtual cut-through time (ici_network.h). A message's credits cap its share of a link it does
// not leave the network from (IciLinkTiming::credit_share; 1 at the defaults). Fidelity: no
// packets, buffers or arbitration; a flow takes its share on every link of its route at once,
// so flows that meet several hops from their sources overlap earlier or later than their
// packets would (models/ici/README.md measures the difference).

#include <cstdint>
#include <queue>
#include <vector>

#include "models/ici/ici_network.h"

namespace systole::models {

/// Flow-level ICI network: transfers as fluid flows at max-min fair link shares (the default).
class IciFlowModel : public IciNetwork {
 public:
  IciFlowModel(const IciRoutes& routes, const IciLinkTiming& timing);

  std::uint32_t start(ChipId src, ChipId dst, std::uint64_t bytes, std::uint64_t at_ps) override;
  std::uint64_t next_event_ps() const override {
    return events_.empty() ? kNever : events_.top().at;
  }
  void step(std::vector<IciCompletion>& done) override;
  std::size_t in_flight() const override { return in_flight_; }
  /// Rate recomputations so far and the flows they covered (for the benchmark's profile).
  std::uint64_t recomputations() const { return recomputations_; }
  std::uint64_t flows_recomputed() const { return flows_recomputed_; }

 private:
  enum class Kind : std::uint8_t { kStart, kDrain, kArrive };
  struct Event {
    std::uint64_t at;
    std::uint64_t seq;
    std::uint32_t slot;     ///< flow slot (start, drain) or transfer id (arrive)
    std::uint32_t version;  ///< drain: the flow's version when it was scheduled
    Kind kind;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct Flow {
    std::vector<LinkId> path;
    std::uint32_t transfer = 0;
    std::uint32_t version = 0;
    std::uint64_t since = 0;  ///< when `remaining` was last brought up to date
    double remaining = 0;     ///< bytes x packet_ps still to leave the source
    double share = 0;         ///< of a link's bandwidth (0: not yet rated)
    double cap = 1;           ///< the most its credits allow
    std::uint32_t mark = 0;   ///< component search stamp
    bool frozen = false;      ///< water-filling scratch
  };

  void push(std::uint64_t at, Kind k, std::uint32_t slot, std::uint32_t version = 0);
  std::uint32_t new_slot();
  void begin_flow(std::uint32_t slot, std::uint64_t now);
  void drain_flow(std::uint32_t slot, std::uint64_t now);
  /// Re-rates the flows connected (through shared links) to the links touched at `now`.
  void recompute(std::uint64_t now);
  /// Gathers the links and flows connected to `seed` (marked with the current stamp).
  void collect_component(LinkId seed);
  void rate_component(std::uint64_t now);
  void water_fill();
  void schedule_drain(std::uint32_t slot, std::uint64_t now, bool rerated);

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t seq_ = 0;
  std::uint32_t next_transfer_ = 0;
  std::size_t in_flight_ = 0;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::vector<std::uint32_t>> link_flows_;  ///< active flow slots per link
  std::vector<std::uint32_t> link_mark_;
  std::uint32_t stamp_ = 0;
  // Scratch of one recomputation.
  std::vector<LinkId> touched_;
  std::vector<LinkId> comp_links_;
  std::vector<std::uint32_t> comp_flows_;
  std::vector<double> link_cap_;
  std::vector<std::uint32_t> link_left_;
  std::vector<double> old_share_;
  std::uint64_t recomputations_ = 0;
  std::uint64_t flows_recomputed_ = 0;
};

}  // namespace systole::models
