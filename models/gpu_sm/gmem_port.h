#pragma once
// The SM's view of everything outside it: when does a CTA's global->shared copy of one k-tile
// land in shared memory, and when is its output tile stored? Kept abstract so the GPU device
// can answer from its L2, crossbar and HBM models; LatencyBandwidthPort is the simple answer
// (a fixed latency behind first-come-first-served bandwidth per SM and, optionally, for all
// SMs together). Plain C++.

#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace systole::models {

/// One copy (all of a k-tile's A and B for one CTA) or one store (a CTA's output tile).
struct GmemRequest {
  int sm = 0;
  int slot = 0;             ///< the CTA's residency slot on its SM
  std::int64_t cta = 0;     ///< CtaWork::id
  std::int64_t k_tile = 0;  ///< -1 for the store
  std::int64_t stage = 0;   ///< the shared-memory stage the copy fills (k_tile mod stages)
  bool store = false;
  Bytes bytes{0};
  Cycles issue{0};          ///< SM cycle the last instruction of the copy (or store) issued
  std::uint64_t token = 0;  ///< the model's handle for a late answer (GpuSmTileStepper::arrived)
};

/// complete()'s answer from a port that cannot know yet (the GPU device's L2 and HBM answer
/// later, in simulated time): the model then waits for GpuSmTileStepper::arrived(token, cycle).
inline constexpr std::uint64_t kGmemPending = ~std::uint64_t{0};

/// Answers requests with the cycle their data is usable in shared memory (copy) or written
/// (store). Contract: both SM models call it in nondecreasing `issue` order, requests of one
/// cycle in (sm, slot) order; the answer must be later than `issue`, or kGmemPending (tile
/// model only: the answer comes later through GpuSmTileStepper::arrived).
class GmemPort {
 public:
  virtual ~GmemPort() = default;
  virtual Cycles complete(const GmemRequest& r) = 0;
};

/// A fixed latency after two FCFS bandwidth stages: the SM's own port, then (when
/// `shared_bytes_per_cycle` > 0) a port all SMs share. Transfer time is bytes / bandwidth
/// rounded up to whole cycles.
class LatencyBandwidthPort : public GmemPort {
 public:
  LatencyBandwidthPort(int sms, double sm_bytes_per_cycle, double shared_bytes_per_cycle,
                       std::uint64_t latency);
  Cycles complete(const GmemRequest& r) override;

 private:
  std::vector<std::uint64_t> sm_free_;
  std::uint64_t shared_free_ = 0;
  double sm_bw_, shared_bw_;
  std::uint64_t latency_;
};

}  // namespace systole::models
