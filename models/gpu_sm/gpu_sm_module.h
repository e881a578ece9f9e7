#pragma once
// SystemC shell of a GPU's SMs: runs one kernel at a time on N SMs through the tile-level model
// (GpuSmTileStepper) while each SM's copy engine (cp.async / TMA) moves the CTAs' tiles through
// `memory` (the L2 in a GPU device) in simulated time. A GEMM's copies and stores become strided
// transfers at the addresses GemmAddressing gives; the model waits for their late answers, so
// L2 hits and misses, crossbar ports and HBM contention decide when each k-tile lands. In a
// Hopper thread-block cluster each CTA loads a share of the B tile for all members (TMA
// multicast) and a k-tile lands when every share has (README.md, "TMA multicast").
// FlashAttention kernels run the same way through GpuAttentionStepper (Q tiles, K/V blocks and
// O stores at the addresses FlashAddressing gives). Memory-bound kernels (elementwise, norms,
// split-K reductions) stream chunks per SM.

#include <systemc>

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "models/common/memory_if.h"
#include "models/common/trace_recorder.h"
#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_attention.h"
#include "models/gpu_sm/gpu_sm_run.h"

namespace systole::models {

/// A kernel's SM cycle at `ps` picoseconds after its start, at `clock_hz`: the first cycle
/// boundary at or after it.
std::uint64_t gpu_sm_cycle_of_ps(std::uint64_t ps, double clock_hz);
/// The last picosecond at or before the boundary of cycle `c` (period_ps = 1e12 / clock): the
/// inverse of gpu_sm_cycle_of_ps at any clock (tests/sc/gpu_device/test_gpu_sm_clock.cpp).
std::uint64_t gpu_sm_cycle_end_ps(std::uint64_t c, double period_ps);

/// The SMs of one GPU behind one memory port (SM i is requester first_requester + i).
class GpuSmArrayModule : public sc_core::sc_module, private GmemPort {
 public:
  sc_core::sc_port<MemoryIf> memory;

  GpuSmArrayModule(const sc_core::sc_module_name& name, const GpuSmConfig& cfg, int sms,
                   std::uint16_t first_requester, int in_flight);

  int sms() const { return static_cast<int>(engines_.size()); }
  std::uint16_t requester(int sm) const { return static_cast<std::uint16_t>(first_ + sm); }
  /// One SM cycle, to the picosecond (for converting traces; the array itself converts with
  /// the exact period: time_at, cycles_at).
  sc_core::sc_time period() const {
    return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(period_ps_)));
  }
  /// Moves the SMs to clock `f` between kernels (a board's DVFS step): later kernels' cycles
  /// last 1 / f.
  void set_clock(Hz f);

  /// Runs a GEMM launch from the current time (call from an SC_THREAD); cycles in the record
  /// count from the call.
  GemmRun run(const GemmLaunch& launch, const GemmAddressing& addr,
              const std::vector<CtaWork>& works);
  /// Runs a FlashAttention launch from the current time (call from an SC_THREAD); tile ids
  /// must be unique. Cycles in the record count from the call.
  FlashRun run(const FlashLaunch& launch, const FlashAddressing& addr);
  /// Runs a memory-bound kernel from the current time (call from an SC_THREAD).
  StreamRun run(const StreamLaunch& launch);

  /// Records every SM's copies (`memory` -> "<device>.smN.smem") and stores (back) on unit
  /// "<device>.smN.copy" into `rec` (units "<device>.smN" are registered before each, for
  /// their CTAs). Call before the run.
  void set_trace(TraceRecorder* rec, const std::string& device, const std::string& memory_path);

 private:
  /// A multicast k-tile copy's place among its cluster's: the cluster (its first CTA's id),
  /// the k-tile and how many members' parts make it whole (1: not multicast).
  struct Meet {
    std::int64_t cluster = 0, k_tile = 0;
    int members = 1;
  };
  struct Job {
    std::uint64_t token = 0;
    std::uint64_t issue = 0;  ///< cycle from the kernel's start
    bool write = false;
    std::vector<DmaDescriptor> descs;
    Meet meet;
    /// A multicast copy: descs[multicast] also goes to the cluster's other SMs (their
    /// requesters), through their crossbar ports.
    int multicast = -1;
    std::array<std::uint16_t, 3> also{};
    std::uint8_t also_count = 0;
  };
  struct Accepted {  ///< a job the memory took, waiting for its data
    std::uint64_t token = 0, issue = 0;
    std::vector<std::uint64_t> handles;
    std::uint64_t bytes = 0;  ///< for the trace
    bool write = false;
    Meet meet;
  };
  /// The parts of one cluster's k-tile that have landed: their tokens and the latest cycle.
  struct Meeting {
    std::uint64_t done = 0;
    std::vector<std::uint64_t> tokens;
  };
  /// An SM's copy engine: one process offers jobs to the memory in order (back-pressure stalls
  /// it), a pool of processes waits for accepted jobs' data, so several are in flight. An idle
  /// finisher waits on its own event and the issuer wakes one per accepted job (one event for
  /// the whole pool woke all of them for each job: ~11 wasted thread switches a job).
  struct Engine {
    std::deque<Job> jobs;
    sc_core::sc_event posted;
    std::deque<Accepted> accepted;
    std::vector<sc_core::sc_event*> idle;  ///< finishers waiting for a job, each on its own event
    /// Those events, one per finisher, owned here: an event local to a process lives on its
    /// coroutine stack, which is never unwound (LeakSanitizer reported its waiter list).
    std::vector<std::unique_ptr<sc_core::sc_event>> finisher_events;
  };
  Cycles complete(const GmemRequest& r) override;
  /// The copy or store job of a FlashAttention request.
  Job flash_job(const GmemRequest& r) const;
  /// A streaming kernel's read or write job (no multicast).
  static Job stream_job(std::uint64_t token, std::uint64_t issue, bool write,
                        const std::vector<DmaDescriptor>& descs);
  /// Steps a late-answer model (GpuSmTileStepper, GpuAttentionStepper) against simulated time
  /// until nothing is left; then time catches up with its last cycle.
  template <class Stepper>
  auto drive(Stepper& st);
  void post(int sm, Job j);
  void issuer(int sm);
  void finisher(int sm, sc_core::sc_event& job);
  void deliver(std::uint64_t token, std::uint64_t cycle);
  /// Throws SimError unless every cluster's members (at most 4) run on distinct SMs at the
  /// same place in their SMs' lists (so each is resident when its partners wait for its part)
  /// with the same B tile and K slice; returns each CTA's SM.
  static std::vector<int> check_clusters(const GemmLaunch& launch,
                                         const std::vector<CtaWork>& works);
  /// A multicast part landed at `done`: once every member's part has, the k-tile is whole in
  /// every member's shared memory and each member's copy is answered at the last part's cycle.
  void meet(const Accepted& a, std::uint64_t done);
  void record(int sm, const Accepted& a, std::uint64_t done);
  /// The current kernel's SM cycle at `t` (the first cycle boundary at or after it).
  std::uint64_t cycles_at(const sc_core::sc_time& t) const;
  /// The last picosecond at or before the boundary of the current kernel's cycle `c`: the
  /// inverse of cycles_at at any clock (cycles_at(time_at(c)) == c). A period rounded to whole
  /// picoseconds drifted against cycles_at by the rounding times the cycle count (at 1185 MHz,
  /// 844 ps for 843.88: copies answered up to 0.014% of the kernel's cycles late).
  sc_core::sc_time time_at(std::uint64_t c) const;
  /// Waits for the next answers and hands them out (GEMM: to the stepper).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> take_arrivals();

  GpuSmConfig cfg_;
  std::uint16_t first_;
  double period_ps_;  // 1e12 / clock, not rounded
  sc_core::sc_time t0_;
  std::vector<std::unique_ptr<Engine>> engines_;
  const GemmAddressing* addr_ = nullptr;
  const std::vector<CtaWork>* works_ = nullptr;
  std::int64_t bk_ = 0;
  std::int64_t out_bytes_ = 2;
  const FlashLaunch* flash_ = nullptr;
  const FlashAddressing* flash_addr_ = nullptr;
  std::vector<size_t> flash_index_;  ///< tile id -> position in flash_->ctas
  std::vector<std::pair<std::uint64_t, std::uint64_t>> arrivals_;      ///< (token, cycle)
  std::map<std::pair<std::int64_t, std::int64_t>, Meeting> meetings_;  ///< (cluster, k-tile)
  std::vector<int> cta_sm_;  ///< the GEMM launch's CTAs' SMs, by id
  sc_core::sc_event arrival_;
  // The trace (set_trace), or nullptr: per SM its copy engine's unit and shared memory.
  TraceRecorder* trace_ = nullptr;
  std::vector<std::uint32_t> copy_unit_;
  std::vector<std::uint16_t> smem_;
  std::uint16_t memory_place_ = 0, load_ = 0, store_ = 0;
};

}  // namespace systole::models
