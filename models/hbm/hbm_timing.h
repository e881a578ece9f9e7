#pragma once
// The bank-level HBM memory system in plain C++: requester ports that split whole transfers
// (strided descriptors or address lists) into requests in order, under an outstanding-request
// limit; the address mapping that spreads them over channels and banks; one controller per
// channel. Event driven with time skipping: each channel knows its next event cycle, and
// advance_to() jumps from the earliest to the next. It goes in windows shorter than the shortest
// issue-to-completion latency: the completions of a window are known when it starts, so they
// are replayed first, in the order a cycle-by-cycle sweep over the channels would meet them
// (which fixes the order in which the ports generate requests), and each channel then runs
// through the whole window on its own (its data stays in cache), the requests reaching it at
// the cycle, and on the side of its own decisions, that the sweep would have given them. A caller
// that needs completion times (the SystemC shell) asks for a lower bound of the next one and
// advances to it, so it never has to step through individual bursts.

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/dma/dma_descriptor.h"
#include "models/hbm/hbm_address_map.h"
#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_slot_heap.h"

namespace systole::models {

using TransferId = std::uint64_t;

struct HbmCompletion {
  TransferId id;
  std::uint32_t port;
  Cycle at;  ///< memory cycle the last response was back (DRAM bus + the port's latency)
};

/// The bank-level memory system (ports, mapping, controllers); cycle-exact, event driven.
class HbmTiming : public HbmControllerClient {
 public:
  explicit HbmTiming(const HbmConfig& cfg);
  ~HbmTiming() override;
  HbmTiming(const HbmTiming&) = delete;
  HbmTiming& operator=(const HbmTiming&) = delete;

  /// A requester (a DMA engine): at most `max_outstanding` requests between issue and the
  /// return of their response, `response_latency` cycles after their last data crossed the
  /// DRAM bus (the interface and on-chip network: a request holds its slot meanwhile, so the
  /// latency limits a port's bandwidth as Little's law says); transfers split into requests of
  /// at most `request_bytes`, aligned to it, and never across an interleave block (so each
  /// request sits in one channel, bank and row).
  std::uint32_t add_port(std::uint32_t max_outstanding, std::uint32_t request_bytes,
                         Cycle response_latency = 0);
  /// Queues a transfer on `port` at the current time; the port issues its transfers in order.
  TransferId submit(std::uint32_t port, const DmaDescriptor& d, bool write);
  /// Queues one request of the port's request size at each address.
  TransferId submit_gather(std::uint32_t port, std::vector<std::uint64_t> addrs, bool write);

  /// Processes every event up to and including cycle `t`.
  void advance_to(Cycle t);
  /// Advances until no transfer is active; returns the cycle the last one completed.
  Cycle run_until_idle();
  Cycle now() const { return now_; }
  bool idle() const { return active_ == 0; }
  /// Transfers completed since the last call, in completion order.
  std::vector<HbmCompletion> take_completed();
  /// A cycle no active transfer can complete before (exact once all its bursts are issued);
  /// kNever when none is active.
  Cycle next_completion_bound() const;
  /// The same bound by a scan over every transfer (the reference next_completion_bound is
  /// tested against).
  Cycle completion_bound_by_scan() const;

  const HbmConfig& config() const { return cfg_; }
  const HbmAddressMap& address_map() const { return map_; }
  std::size_t channels() const { return ctl_.size(); }
  const HbmController& controller(std::size_t c) const { return *ctl_[c]; }
  /// For set_log and set_fast: requests must enter through the ports (the model mirrors each
  /// controller's next decision cycle after every call it makes).
  HbmController& controller(std::size_t c) { return *ctl_[c]; }
  /// With false, time advances in the short windows only (tCWL + tBL, completions replayed
  /// before the channels' passes) and every controller takes its full scan: the reference the
  /// fast paths are tested against (the same commands at the same cycles).
  void set_fast(bool fast);
  /// Windows run with their completions replayed after the channels' passes (the fast path).
  std::uint64_t long_windows() const { return long_windows_run_; }
  double tck_ps() const { return tck_ps_; }
  double peak_bytes_per_cycle() const { return peak_per_cycle_; }
  std::uint64_t requests() const { return requests_; }

  // HbmControllerClient
  void on_request_done(std::uint32_t tag, Cycle t) override;
  void on_space(std::uint32_t channel, std::uint32_t pc, Cycle t) override;

 protected:
  void on_tally(std::uint32_t tag) override { rekey(tag); }

 private:
  struct Transfer;
  struct Port;
  void start_transfer(std::uint32_t port, const DmaDescriptor& d, bool write,
                      std::vector<std::uint64_t> gather);
  void finish(std::uint32_t slot, Cycle t);
  /// Brings transfer `slot`'s entry of the completion bound up to date (after it started,
  /// generated a request or issued a burst).
  void rekey(std::uint32_t slot);
  /// Cycles from the first possible issue of `left` bursts to the last one's, at least.
  Cycle spread_of(std::uint64_t left) const;
  /// The most bursts left whose spread_of is below `spread` (> 0).
  std::uint64_t spread_drops_at(Cycle spread) const;
  /// Request of transfer `tag` is back at `t`: frees its slot, completes the transfer when it
  /// was the last, lets the port issue more.
  void release(std::uint32_t tag, Cycle t);
  /// Releases every response due at or before `t`.
  void release_due(Cycle t);
  bool generate(Port& p, HbmRequestIn& out, std::uint32_t& channel);
  /// The bursts of a request of `len` bytes at `addr`.
  std::uint64_t request_bursts(std::uint64_t addr, std::uint64_t len) const {
    return ((addr + len + atom_mask_) >> atom_shift_) - (addr >> atom_shift_);
  }
  /// The bursts of a gather's requests on port `p` (each cut at its interleave block).
  std::uint64_t gather_bursts(const Port& p, const std::vector<std::uint64_t>& addrs) const;
  void try_issue(std::uint32_t port, Cycle t);
  /// Hands request `r` to its channel at `t`: to the controller, or to the ingress queue
  /// while that is not empty or the controller's queue is full.
  void route(std::uint32_t channel, const HbmRequestIn& r, Cycle t);
  /// The earliest next event of any channel.
  Cycle next_event() const;
  /// Processes every event of cycles [from, to) (see advance_to); with `until_idle`, stops
  /// after the cycle in which the last active transfer completes. Returns the cycle after the
  /// last one processed.
  Cycle run_window(Cycle from, Cycle to, bool until_idle);
  /// Completes the requests of the channels whose next completion is due at `t`, in channel
  /// order (as the sweep meets them); returns the earliest next completion of any channel.
  Cycle complete_at(Cycle t);
  /// The completions of [from, to) before the channels' passes (short windows); returns the
  /// window's end (earlier with `until_idle` once no transfer is active).
  Cycle replay_completions_first(Cycle from, Cycle to, bool until_idle);
  /// The responses released in [from, to) (long windows: every one was sent before `from`);
  /// returns the window's end as replay_completions_first does.
  Cycle replay_releases(Cycle from, Cycle to, bool until_idle);
  /// The completions of [from, to) after the channels' passes (long windows), in the order the
  /// sweep meets them: their responses are back at `to` or later.
  void replay_completions_after(Cycle to);
  /// Cycles no command issued from now completes within: reads take longer than writes, and
  /// with no write transfer active no write can issue (none is queued or can be generated).
  /// Long windows: while every port has a response latency of at least the short window, no
  /// response sent in a window of that latency is back within it.
  Cycle window() const {
    const Cycle w = active_writes_ ? window_ : read_window_;
    return long_windows_ && min_latency_ >= w ? min_latency_ : w;
  }

  HbmConfig cfg_;
  HbmAddressMap map_;
  std::vector<std::unique_ptr<HbmController>> ctl_;
  std::vector<Port> ports_;
  std::vector<Transfer> xfers_;
  std::uint32_t free_xfer_ = ~0u;
  std::vector<HbmRing<HbmRequestIn>> ingress_;  // per channel, PC and kind: waiting requests
  std::vector<HbmCompletion> completed_;
  /// A request generated while completions are replayed: reaches `channel` at cycle `at`,
  /// before (`after` false) or after that channel's first pass of decisions in that cycle.
  struct Arrival {
    Cycle at;
    bool after;
    HbmRequestIn r;
  };
  std::vector<std::vector<Arrival>> arrivals_;  // per channel, in arrival order
  std::vector<Cycle> done_at_;  // per channel: its next_done() (only its windows change it)
  /// Per channel: its controller's next_decide(), refreshed after every call that can change
  /// it (enqueue, complete, the window's pass), so idle channels are skipped unread.
  std::vector<Cycle> decide_at_;
  std::vector<std::uint32_t> busy_;  // the channels a window passes through
  /// A response on its way back to its port (ports with a response latency), released in
  /// (at, seq) order; `origin` is the channel whose completion sent it (see Arrival::after).
  /// Completions are met in time order, so the responses of one latency arrive in (at, seq)
  /// order: one FIFO per distinct latency, merged at their fronts (a heap cost log n each).
  struct Response {
    Cycle at;
    std::uint64_t seq;
    std::uint32_t tag, origin;
  };
  std::vector<HbmRing<Response>> responses_;  // per distinct latency (Port::fifo)
  std::vector<Cycle> latencies_;              // the latency of each FIFO
  /// The FIFO whose front response is due first (by at, then seq); -1 when none waits.
  int first_response() const;
  Cycle next_response() const {
    const int f = first_response();
    return f < 0 ? kNever : responses_[static_cast<std::size_t>(f)].front().at;
  }
  std::uint64_t response_seq_ = 0;
  bool deferring_ = false;      // completions are being replayed: defer arrivals
  std::uint32_t origin_ = 0;    // the channel whose completions are replayed
  bool long_windows_ = true;    // windows as long as the ports' least response latency
  Cycle min_latency_ = kNever;  // the least response latency of the ports
  std::uint64_t long_windows_run_ = 0;
  Cycle window_ = 1;       // no command issued in a window completes within it
  Cycle read_window_ = 1;  // the same while no write transfer is active
  std::uint64_t active_writes_ = 0;
  // The completion bound's terms (rekey), by transfer slot: last data end + latency of the
  // transfers whose last burst issued; spread + tCL or tCWL + tBL + latency of the others.
  HbmSlotHeap bound_fixed_, bound_pending_;
  Cycle bound_bl_ = 0, bound_gap_[2] = {0, 0};
  Cycle now_ = 0;
  TransferId next_id_ = 1;
  std::uint64_t active_ = 0, requests_ = 0;
  double tck_ps_ = 0, peak_per_cycle_ = 0;
  std::uint32_t total_pcs_ = 0, pcs_ = 0, atom_shift_ = 0;
  std::uint64_t atom_mask_ = 0;
};

}  // namespace systole::models
