#pragma once
// A requester's outstanding-request window (plain C++, picoseconds): a transfer is split into
// requests of `request_bytes`; a request holds one of the `slots` from its issue until its
// response is back, `round_trip` later, and request k may issue only once request k - slots has
// returned (across transfers: the engine's window is one). With nothing else in the way a stream
// therefore moves at most slots x request_bytes / round_trip (Little's law). Fidelity: the
// window alone; the memory's own bandwidth limit is applied beside it (BandwidthMemoryModule).

#include <algorithm>
#include <cstdint>
#include <vector>

namespace systole::models {

/// One requester's window of in-flight requests; each holds its slot for a fixed round trip.
class RequestWindow {
 public:
  RequestWindow(std::uint32_t slots, std::uint32_t request_bytes)
      : ring_(std::max<std::uint32_t>(slots, 1), 0.0),
        request_(std::max<std::uint32_t>(request_bytes, 1)) {}

  /// Issues a transfer of `bytes` at `now_ps`; returns when its last response is back. Closed
  /// form per slot: the requests of slot j issue back to back one round trip apart (the slot's
  /// previous response bounds the first), so the cost is O(min(requests, slots)).
  double transfer(double now_ps, std::uint64_t bytes, double round_trip_ps) {
    const std::uint64_t n = (bytes + request_ - 1) / request_;
    if (n == 0) return now_ps;
    const std::uint64_t slots = ring_.size();
    double last = now_ps;
    for (std::uint64_t i = 0; i < std::min(n, slots); ++i) {
      double& free_at = ring_[(head_ + i) % slots];
      const double uses = static_cast<double>((n - 1 - i) / slots + 1);
      free_at = std::max(now_ps, free_at) + uses * round_trip_ps;
      last = std::max(last, free_at);
    }
    head_ = (head_ + n) % slots;
    return last;
  }
  std::uint32_t request_bytes() const { return request_; }

 private:
  // When each slot's latest request returns, in issue order from head_: non-decreasing and
  // within one round trip of each other, so a slot's next requests keep the issue order.
  std::vector<double> ring_;
  std::uint64_t head_ = 0;  // the slot the next request takes
  std::uint32_t request_;
};

}  // namespace systole::models
