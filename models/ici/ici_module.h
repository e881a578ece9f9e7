#pragma once
// SystemC shell of the ICI network: each chip's ICI DMA offers transfers (source chip,
// destination chip, bytes, a callback for when it has arrived) through IciIf; the network model
// the config names (flow level by default) times them under the SystemC kernel. Back-pressure
// is the request/retry handshake of MemoryIf (models/common/memory_if.h): a chip with
// `dma_queue` transfers under way is refused and its retry event fires when one arrives.
// A collective runs through the same ports: its schedule's messages are offered from their
// source chips as their dependencies arrive. A later tpu_pod system binds each chip's ICI DMA
// to this interface.

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_network.h"
#include "models/ici/ici_stats.h"

namespace systole::models {

/// One transfer as a chip's ICI DMA offers it.
struct IciTransfer {
  ChipId src = 0;
  ChipId dst = 0;
  std::uint64_t bytes = 0;
  /// Called in the kernel's context when the transfer has arrived (it must not wait).
  std::function<void()> on_arrival;
};

/// What a chip's ICI DMA sees of the network: offer a transfer (refused while the chip has
/// `dma_queue` transfers under way), wait for the retry, wait for an arrival.
class IciIf : public virtual sc_core::sc_interface {
 public:
  static constexpr std::uint64_t kRefused = 0;
  /// Offers `t` now: returns a handle, or kRefused (then retry_event(t.src) fires once a place
  /// has freed). Does not wait.
  virtual std::uint64_t try_send(IciTransfer t) = 0;
  /// Notified when chip `c`'s ICI DMA may have room again.
  virtual const sc_core::sc_event& retry_event(ChipId c) const = 0;
  /// Called from an SC_THREAD: blocks until transfer `h` has arrived.
  virtual void wait_arrival(std::uint64_t h) = 0;

  /// Called from an SC_THREAD: offers `t` until accepted; returns its handle.
  std::uint64_t send(const IciTransfer& t) {
    for (;;) {
      const std::uint64_t h = try_send(t);
      if (h != kRefused) return h;
      sc_core::wait(retry_event(t.src));
    }
  }
  /// Called from an SC_THREAD: sends `t` and waits for it to arrive.
  void transfer(const IciTransfer& t) { wait_arrival(send(t)); }
};

/// The slice's ICI network under the SystemC kernel (time resolution 1 ps).
class IciNetworkModule : public sc_core::sc_module, public IciIf {
 public:
  SC_HAS_PROCESS(IciNetworkModule);
  IciNetworkModule(const sc_core::sc_module_name& name, const IciConfig& cfg);
  ~IciNetworkModule() override;

  std::uint64_t try_send(IciTransfer t) override;
  const sc_core::sc_event& retry_event(ChipId c) const override { return *retry_[c]; }
  void wait_arrival(std::uint64_t h) override;

  /// Runs `spec` now through the chips' ports (sharing their DMA queues with other transfers);
  /// `done` gets its figures when its last message has arrived. Its record joins collectives().
  void start_collective(const CollectiveSpec& spec,
                        std::function<void(const CollectiveResult&)> done = {});

  /// As start_collective, on the groups whose chips `chips` marks only (chips.size() = the
  /// slice's chips; a group is either wholly in or wholly out: a pipeline stage's groups).
  void start_collective_within(const CollectiveSpec& spec, const std::vector<bool>& chips,
                               std::function<void(const CollectiveResult&)> done = {});

  /// Point-to-point messages (a pipeline stage's hand-off to the next): `bytes` from the first
  /// chip of each pair to the second, all offered now and independent of each other, through
  /// the chips' ports; `done` gets the time from now to the last arrival, in seconds. Not a
  /// collective: it does not join collectives().
  void start_point_to_point(const std::vector<std::pair<ChipId, ChipId>>& pairs,
                            std::uint64_t bytes, std::function<void(double)> done = {});

  const IciConfig& config() const { return cfg_; }
  const IciTopology& topology() const { return topo_; }
  const IciNetwork& network() const { return *net_; }
  const std::vector<IciCollectiveRecord>& collectives() const { return records_; }
  /// Offers refused so far (each refused offer counts).
  std::uint64_t refusals() const { return refusals_; }
  /// Declares the network's stats in `g` (after the run: one group per collective run).
  void declare_stats(stats::StatGroup& g, const stats::Timebase& tb) const;

 private:
  struct Pending {
    ChipId src = 0;
    std::function<void()> on_arrival;
  };
  struct CollectiveRun;

  void advance();  ///< SC_METHOD: steps the model to now, delivers arrivals, re-arms itself
  void wake();     ///< makes advance() run at the model's next event
  void offer_backlog(ChipId c);
  /// Queues `work` (messages of `run` whose dependencies have arrived) at their chips' ports;
  /// records the collective once nothing of it is left.
  void release(CollectiveRun& run, std::vector<IciMessageId> work);
  void issue(CollectiveRun& run, IciMessageId m);
  static double now_ps();

  IciConfig cfg_;
  IciTopology topo_;
  std::unique_ptr<IciNetwork> net_;
  std::vector<std::uint32_t> in_flight_;  ///< per chip: accepted, not arrived
  std::vector<std::unique_ptr<sc_core::sc_event>> retry_;
  /// Per chip: collective messages waiting for a place in its DMA queue.
  std::vector<std::deque<std::pair<CollectiveRun*, IciMessageId>>> backlog_;
  std::unordered_map<std::uint32_t, Pending> pending_;  ///< by network transfer id
  std::vector<bool> arrived_;                           ///< by network transfer id
  std::vector<std::unique_ptr<CollectiveRun>> runs_;
  std::vector<IciCollectiveRecord> records_;
  std::vector<IciCompletion> done_;
  sc_core::sc_event wake_;
  sc_core::sc_event arrival_;  ///< any transfer arrived
  std::uint64_t refusals_ = 0;
};

}  // namespace systole::models
