#include "models/gpu_sm/gmem_port.h"

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"

namespace systole::models {

LatencyBandwidthPort::LatencyBandwidthPort(int sms, double sm_bytes_per_cycle,
                                           double shared_bytes_per_cycle, std::uint64_t latency)
    : sm_free_(static_cast<size_t>(sms), 0),
      sm_bw_(sm_bytes_per_cycle),
      shared_bw_(shared_bytes_per_cycle),
      latency_(std::max<std::uint64_t>(latency, 1)) {
  SYSTOLE_ASSERT(sms > 0 && sm_bytes_per_cycle > 0, "a port needs SMs and bandwidth");
}

Cycles LatencyBandwidthPort::complete(const GmemRequest& r) {
  SYSTOLE_ASSERT(r.sm >= 0 && static_cast<size_t>(r.sm) < sm_free_.size(), "SM out of range");
  const auto bytes = static_cast<double>(r.bytes.value());
  auto& own = sm_free_[static_cast<size_t>(r.sm)];
  const std::uint64_t s1 = std::max(r.issue.value(), own);
  own = s1 + static_cast<std::uint64_t>(std::ceil(bytes / sm_bw_));
  std::uint64_t done = own;
  if (shared_bw_ > 0) {
    const std::uint64_t s2 = std::max(s1, shared_free_);
    shared_free_ = s2 + static_cast<std::uint64_t>(std::ceil(bytes / shared_bw_));
    done = std::max(done, shared_free_);
  }
  return Cycles(done + latency_);
}

}  // namespace systole::models
